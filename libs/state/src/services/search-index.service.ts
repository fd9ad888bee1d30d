import { randomUUID } from 'node:crypto';
import type { IndexIntegrity, SearchIndexStatus } from '@statehouse/contracts';
import { yieldBetweenChunks } from '../db/chunks.js';
import type { Db, Dialect } from '../db/database.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { JobLeaseRepository } from '../repositories/job-lease.repository.js';
import { StoreMetaRepository } from '../repositories/store-meta.repository.js';
import type { RebuildChunks, SearchIndexPort } from '../search/search-index.port.js';
import { assertAdmin } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { ConflictError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';

const META_KEY = 'search_index';
export const SEARCH_REBUILD_JOB = 'search-rebuild';
/** A rebuild renews its admission between chunks; a crashed one is resumable after this long. */
const REBUILD_LEASE_MS = 2 * 60 * 1000;

interface IndexState {
  status: SearchIndexStatus['status'];
  integrity: IndexIntegrity | null;
  lastRebuild: SearchIndexStatus['lastRebuild'];
}

/**
 * Admin view of the search indexes: integrity check and rebuild. A rebuild is admitted one at a
 * time across processes (a job lease in the store) and runs in the background; its state lives
 * in the store so every process reports the same.
 */
export class SearchIndexService {
  private readonly meta = new StoreMetaRepository();
  private readonly leases = new JobLeaseRepository();
  private running: Promise<void> | undefined;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly port: SearchIndexPort,
    private readonly logger: Logger,
    private readonly dialect: Dialect,
  ) {}

  async status(ctx: OperationContext, check: boolean): Promise<SearchIndexStatus> {
    assertAdmin(ctx.principal);
    try {
      if (check) {
        // Rehearsed: the temp tables of the check vanish with the rolled-back transaction.
        const indexes = await this.uow.rehearse((tx) => this.port.check(tx.db));
        const integrity: IndexIntegrity = {
          checkedAt: toIso(this.clock.now()),
          ok: indexes.every((index) => index.ok),
          indexes,
        };
        await this.save({ ...(await this.load()), integrity });
      }
      const state = await this.load();
      // While a chunked rebuild runs the indexes are incomplete: searches answer by scan.
      const degraded = (await this.port.inProgress(this.db)) || !(await this.port.usable(this.db));
      return { ...state, degraded };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Starts a rebuild unless one is running anywhere; answers at once with the new state.
   * Single-flight: each run holds the lease under a name of its own (`holder` plus a run id), so a
   * second request — from this process or another, with the same process holder or not — is
   * refused while the lease is live, and only the run that took the lease renews or releases it.
   */
  async rebuild(ctx: OperationContext, holder: string): Promise<SearchIndexStatus> {
    assertAdmin(ctx.principal);
    const run = runHolder(holder);
    if (this.running || !(await this.admit(run))) {
      throw new ConflictError('a search index rebuild is already running');
    }
    const startedAt = toIso(this.clock.now());
    await this.save({
      ...(await this.load()),
      status: 'rebuilding',
      lastRebuild: { startedAt, finishedAt: null, error: null },
    });
    // The answer describes the admitted run as it starts: read after start(), a small index could
    // already be rebuilt and the caller would be told 'ready' for the rebuild it just asked for.
    const accepted = await this.status(ctx, false);
    this.start(run, startedAt);
    return accepted;
  }

  /**
   * Continues a rebuild that a crashed (or stopped) process left half-done, once its admission has
   * expired. Cheap when there is nothing to resume: called at start-up and by index maintenance.
   */
  async resumeAbandoned(holder: string): Promise<boolean> {
    try {
      if (this.running || !(await this.port.inProgress(this.db))) return false;
      const run = runHolder(holder);
      if (!(await this.admit(run))) return false;
      // Another request of this process may have started a run while the lease was taken.
      if (this.running) {
        await this.release(run);
        return false;
      }
      const state = await this.load();
      this.logger.warn('resuming an interrupted search index rebuild', { startedAt: state.lastRebuild?.startedAt });
      this.start(run, state.lastRebuild?.startedAt ?? toIso(this.clock.now()));
      return true;
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** True while a rebuild is incomplete (searches then answer by scan, marked degraded). */
  async rebuilding(): Promise<boolean> {
    return this.port.inProgress(this.db);
  }

  /** Asks a rebuild running in this process to stop at its next chunk (shutdown); it resumes later. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  private async admit(holder: string): Promise<boolean> {
    const now = this.clock.now();
    return this.uow.run(null, (tx) => this.leases.acquire(tx.db, SEARCH_REBUILD_JOB, holder, now, REBUILD_LEASE_MS));
  }

  private async release(holder: string): Promise<void> {
    await this.uow.run(null, (tx) => this.leases.release(tx.db, SEARCH_REBUILD_JOB, holder)).catch(() => undefined);
  }

  private start(holder: string, startedAt: string): void {
    let lastRenew = this.clock.now();
    let lost = false;
    const chunks: RebuildChunks = {
      between: async (lastChunkMs) => {
        if (this.stopping) throw new Error('stopped by shutdown; the rebuild resumes on the next start');
        if (this.clock.now() - lastRenew > REBUILD_LEASE_MS / 4) {
          lastRenew = this.clock.now();
          const kept = await this.uow.run(null, (tx) =>
            this.leases.acquire(tx.db, SEARCH_REBUILD_JOB, holder, lastRenew, REBUILD_LEASE_MS),
          );
          // This process stalled past its lease and another one took the rebuild over: stop here.
          if (!kept) {
            lost = true;
            throw new Error('the rebuild lease was taken over by another process');
          }
        }
        await yieldBetweenChunks(this.dialect, lastChunkMs);
      },
    };
    this.running = (async () => {
      await this.port.rebuild(this.db, chunks);
      await this.save({
        ...(await this.load()),
        status: 'ready',
        lastRebuild: { startedAt, finishedAt: toIso(this.clock.now()), error: null },
      });
      this.logger.info('search index rebuilt', { startedAt });
    })()
      .catch(async (error) => {
        // Stopping: resumed later. Lost: the process that took the lease over reports the outcome.
        if (this.stopping || lost) return;
        this.logger.error('search index rebuild failed', { error: String(error) });
        await this.save({
          ...(await this.load()),
          status: 'failed',
          lastRebuild: {
            startedAt,
            finishedAt: toIso(this.clock.now()),
            error: String((error as Error).message ?? error),
          },
        }).catch(() => undefined);
      })
      .finally(async () => {
        this.running = undefined;
        await this.release(holder);
      });
  }

  /** Resolves when a rebuild started by this process has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await this.running;
  }

  private async load(): Promise<IndexState> {
    const text = await this.meta.get(this.db, META_KEY);
    return text ? (JSON.parse(text) as IndexState) : { status: 'ready', integrity: null, lastRebuild: null };
  }

  private async save(state: IndexState): Promise<void> {
    await this.uow.run(null, (tx) => this.meta.set(tx.db, META_KEY, JSON.stringify(state)));
  }
}

/** The lease name of one rebuild run: the process holder plus a run id (never shared by two runs). */
function runHolder(holder: string): string {
  return `${holder}#rebuild-${randomUUID().slice(0, 8)}`;
}
