import type { IndexIntegrity, SearchIndexStatus } from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { StoreMetaRepository } from '../receipts/store-meta.repository.js';
import { JobLeaseRepository } from '../retention/job-lease.repository.js';
import { assertAdmin } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { ConflictError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';
import type { UnitOfWork } from '../shared/unit-of-work.js';
import type { SearchIndexPort } from './search-index.port.js';

const META_KEY = 'search_index';
export const SEARCH_REBUILD_JOB = 'search-rebuild';
const REBUILD_LEASE_MS = 60 * 60 * 1000;

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

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly port: SearchIndexPort,
    private readonly logger: Logger,
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
      const usable = state.status === 'rebuilding' ? true : await this.port.usable(this.db);
      return { ...state, degraded: !usable };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Starts a rebuild unless one is running anywhere; answers at once with the new state. */
  async rebuild(ctx: OperationContext, holder: string): Promise<SearchIndexStatus> {
    assertAdmin(ctx.principal);
    const now = this.clock.now();
    const admitted = await this.uow.run(null, (tx) =>
      this.leases.acquire(tx.db, SEARCH_REBUILD_JOB, holder, now, REBUILD_LEASE_MS),
    );
    if (!admitted) throw new ConflictError('a search index rebuild is already running');
    const state = await this.load();
    const startedAt = toIso(now);
    await this.save({ ...state, status: 'rebuilding', lastRebuild: { startedAt, finishedAt: null, error: null } });
    this.running = this.port
      .rebuild(this.db)
      .then(async () => {
        await this.save({
          ...(await this.load()),
          status: 'ready',
          lastRebuild: { startedAt, finishedAt: toIso(this.clock.now()), error: null },
        });
        this.logger.info('search index rebuilt', { startedAt });
      })
      .catch(async (error) => {
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
        await this.uow.run(null, (tx) => this.leases.release(tx.db, SEARCH_REBUILD_JOB, holder)).catch(() => undefined);
      });
    return this.status(ctx, false);
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
