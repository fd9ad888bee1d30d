import { hostname } from 'node:os';
import type {
  ImportJob,
  ImportJobPage,
  ImportProgress,
  ImportReport,
  ListImportsQuery,
  OnConflict,
  Principal,
} from '@statehouse/contracts';
import type { Db, Executor } from '../db/database.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { JobLeaseRepository } from '../repositories/job-lease.repository.js';
import { assertAdmin, principalKey } from '../shared/access.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import { ConflictError, DomainError, NotFoundError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';
import {
  type HermesImporter,
  type HermesImportOptions,
  type HermesImportResult,
  ImportAbortedError,
} from './hermes/hermes-importer.js';

/** How sessions too big for one unit of work are written (defaults in the importer; tests and benches tune them). */
export type HermesSplitTuning = Pick<
  HermesImportOptions,
  'splitSessionsAbove' | 'maxSessionChunk' | 'betweenSessionChunks' | 'readPageMessages'
>;

import { IMPORT_JOB, ImportLeaseLostError } from '../domain/import-errors.js';
import { ImportJobRepository, type ImportJobRow } from '../repositories/import-job.repository.js';

/** (created at, id) of the last import of a page. */
const IMPORT_CURSOR = cursorShape(CursorPart.epochMs, CursorPart.text);

/** The import lease: renewed by a heartbeat while a run lives; another process may take it after. */
export const IMPORT_LEASE_MS = 60_000;
const HEARTBEAT_MS = 10_000;
const WATCH_POLL_MS = 500;

const EMPTY_REPORT: ImportReport = {
  sessions: { created: 0, updated: 0, skipped: 0, conflicts: 0 },
  messages: { created: 0, skipped: 0 },
  lineage: { compression: 0, branch: 0, reset: 0, delegate: 0 },
  routes: 0,
  warnings: [],
};
const START_PROGRESS: ImportProgress = {
  phase: 'reading',
  sessionsTotal: 0,
  sessionsDone: 0,
  messagesTotal: 0,
  messagesDone: 0,
};

export interface HermesRunRequest {
  path: string;
  profile?: string;
  onConflict: OnConflict;
  dryRun: boolean;
  onProgress?(progress: ImportProgress, report: ImportReport): void;
  batchTargetMs?: number;
  split?: HermesSplitTuning;
}

export interface HermesUploadRequest {
  /** The uploaded file, in a private directory this process made (removed when the run ends). */
  path: string;
  dir: string;
  fileName: string | null;
  fileBytes: number;
  profile?: string;
  onConflict: OnConflict;
  dryRun: boolean;
}

/**
 * Import runs: one at a time per store (a job lease, so a CLI run and an API run never overlap),
 * each recorded in `import_jobs` with its progress and report as they commit, so any replica can
 * answer for a run another one executes.
 */
export class ImportService {
  private readonly jobs = new ImportJobRepository();
  private readonly leases = new JobLeaseRepository();
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly importer: HermesImporter,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs an import of a Hermes file in the foreground (the CLI). A dry run takes no lease and
   * records nothing; a real run is recorded like any other.
   */
  async runHermes(
    ctx: OperationContext,
    request: HermesRunRequest,
  ): Promise<HermesImportResult & { jobId: string | null }> {
    assertAdmin(ctx.principal);
    if (request.dryRun) {
      const result = await this.importer.run({
        path: request.path,
        profile: request.profile,
        onConflict: request.onConflict,
        dryRun: true,
        jobId: null,
        actor: ctx.principal,
        onProgress: request.onProgress,
        batchTargetMs: request.batchTargetMs,
        ...request.split,
      });
      return { ...result, jobId: null };
    }
    const job = await this.begin(ctx, {
      fileName: request.path,
      fileBytes: 0,
      profile: request.profile,
      onConflict: request.onConflict,
      dryRun: false,
    });
    let outcome: HermesImportResult | undefined;
    await this.execute(job.id, job.holder, {
      path: request.path,
      profile: request.profile,
      onConflict: request.onConflict,
      dryRun: false,
      onProgress: request.onProgress,
      batchTargetMs: request.batchTargetMs,
      split: request.split,
      actor: ctx.principal,
      rethrow: true,
      done: (result) => {
        outcome = result;
      },
    });
    return { ...outcome!, jobId: job.id };
  }

  /**
   * Refuses early (before a long upload) when another import is running anywhere. With
   * `leaseChecked: false` only the caller is checked (a retry whose answer may be a replay).
   */
  async assertIdle(ctx: OperationContext, options: { leaseChecked?: boolean } = {}): Promise<void> {
    assertAdmin(ctx.principal);
    if (options.leaseChecked === false) return;
    try {
      const lease = await this.leases.find(this.db, IMPORT_JOB);
      if (lease && Number(lease.expires_at) > this.clock.now() && !holderIsGone(lease.holder)) {
        throw new ConflictError(`an import is already running (${lease.holder}); one import at a time per store`);
      }
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Starts an import of an uploaded file in the background; answers with its id at once. */
  async startHermes(ctx: OperationContext, request: HermesUploadRequest): Promise<{ id: string }> {
    assertAdmin(ctx.principal);
    const job = await this.begin(ctx, request);
    const abort = new AbortController();
    const done = this.execute(job.id, job.holder, {
      path: request.path,
      ownedDir: request.dir,
      profile: request.profile,
      onConflict: request.onConflict,
      dryRun: request.dryRun,
      signal: abort.signal,
      actor: ctx.principal,
      rethrow: false,
    }).finally(() => this.running.delete(job.id));
    this.running.set(job.id, { abort, done });
    return { id: job.id };
  }

  async get(ctx: OperationContext, id: string): Promise<ImportJob> {
    assertAdmin(ctx.principal);
    try {
      const row = await this.jobs.find(this.db, id);
      if (!row) throw new NotFoundError('import');
      return this.toJob(row);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async list(ctx: OperationContext, query: ListImportsQuery): Promise<ImportJobPage> {
    assertAdmin(ctx.principal);
    try {
      const after = query.cursor ? decodeCursor(query.cursor, IMPORT_CURSOR) : undefined;
      const rows = await this.jobs.list(
        this.db,
        after ? { at: Number(after[0]), id: String(after[1]) } : undefined,
        query.limit + 1,
      );
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        items: page.map((row) => this.toJob(row)),
        nextCursor: rows.length > query.limit && last ? encodeCursor([Number(last.created_at), last.id]) : null,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * The run as it moves: a snapshot whenever it changed, until it finished. Reads the store (any
   * replica's run), woken early by runs of this process.
   */
  async *watch(ctx: OperationContext, id: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<ImportJob> {
    let last = '';
    for (;;) {
      if (options.signal?.aborted) return;
      const job = await this.get(ctx, id);
      const fingerprint = `${job.state}:${job.updatedAt}:${job.progress.messagesDone}:${job.progress.phase}`;
      if (fingerprint !== last) {
        last = fingerprint;
        yield job;
      }
      if (job.state !== 'running') return;
      await this.waitForChange(options.signal);
    }
  }

  /** Stops runs of this process (shutdown): each ends `interrupted` after its current unit of work. */
  async close(): Promise<void> {
    for (const run of this.running.values()) run.abort.abort();
    await Promise.all([...this.running.values()].map((run) => run.done));
  }

  /** Resolves when the runs of this process have finished (tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()].map((run) => run.done));
  }

  // ---- internals ---------------------------------------------------------------------------------

  private async begin(
    ctx: OperationContext,
    request: { fileName: string | null; fileBytes: number; profile?: string; onConflict: OnConflict; dryRun: boolean },
  ): Promise<{ id: string; holder: string }> {
    const id = this.ids.next();
    const holder = `import:${id}@${hostname()}:${process.pid}`;
    const now = this.clock.now();
    await this.uow.run(null, async (tx) => {
      const admitted =
        (await this.leases.acquire(tx.db, IMPORT_JOB, holder, now, IMPORT_LEASE_MS)) ||
        (await this.takeOverFromGone(tx.db, holder, now));
      if (!admitted) throw new ConflictError('an import is already running; one import at a time per store');
      await this.jobs.insert(tx.db, {
        id,
        kind: 'hermes',
        state: 'running',
        dry_run: request.dryRun ? 1 : 0,
        profile: request.profile ?? null,
        on_conflict: request.onConflict,
        file_name: request.fileName,
        file_bytes: request.fileBytes,
        progress: JSON.stringify(START_PROGRESS),
        report: JSON.stringify(EMPTY_REPORT),
        conversations: '[]',
        error: null,
        holder,
        created_by: principalKey(ctx.principal),
        created_at: now,
        started_at: now,
        finished_at: null,
        updated_at: now,
      });
    });
    return { id, holder };
  }

  /**
   * A run killed on this host (kill -9, a crash) holds the lease until it expires; when its process
   * is provably gone the next run takes the lease at once and records the dead run as interrupted.
   */
  private async takeOverFromGone(db: Executor, holder: string, now: number): Promise<boolean> {
    const current = await this.leases.find(db, IMPORT_JOB);
    if (!current || !holderIsGone(current.holder)) return false;
    if (!(await this.leases.takeOver(db, IMPORT_JOB, current.holder, holder, now + IMPORT_LEASE_MS))) return false;
    const deadJob = /^import:([^@]+)@/.exec(current.holder)?.[1];
    if (deadJob) {
      await this.jobs.markInterrupted(
        db,
        deadJob,
        now,
        'the process running this import stopped; a later import resumed it',
      );
    }
    return true;
  }

  private async execute(
    jobId: string,
    holder: string,
    options: {
      path: string;
      ownedDir?: string;
      profile?: string;
      onConflict: OnConflict;
      dryRun: boolean;
      signal?: AbortSignal;
      onProgress?(progress: ImportProgress, report: ImportReport): void;
      batchTargetMs?: number;
      split?: HermesSplitTuning;
      /** Who asked (the actor of any receipt a replace writes). */
      actor: Principal;
      rethrow: boolean;
      done?(result: HermesImportResult): void;
    },
  ): Promise<void> {
    let progress = START_PROGRESS;
    let report = EMPTY_REPORT;
    let conversations: { id: string; title: string | null }[] = [];
    // Set once the lease is found in another run's hands: the run stops before its next chunk.
    let leaseLost = false;
    const heartbeat = setInterval(() => {
      void this.uow
        .run(null, async (tx) => {
          const now = this.clock.now();
          if (leaseLost || !(await this.leases.acquire(tx.db, IMPORT_JOB, holder, now, IMPORT_LEASE_MS))) {
            leaseLost = true;
            return;
          }
          await this.jobs.saveProgress(tx.db, jobId, {
            progress: JSON.stringify(progress),
            report: JSON.stringify(report),
            conversations: JSON.stringify(conversations),
            updatedAt: now,
          });
        })
        .catch((error) => this.logger.warn('import heartbeat failed', { jobId, error: String(error) }));
    }, HEARTBEAT_MS);
    heartbeat.unref();
    let state: 'succeeded' | 'failed' | 'interrupted' = 'succeeded';
    let failure: string | null = null;
    try {
      const result = await this.importer.run({
        path: options.path,
        ownedDir: options.ownedDir,
        profile: options.profile,
        onConflict: options.onConflict,
        dryRun: options.dryRun,
        jobId,
        actor: options.actor,
        signal: options.signal,
        batchTargetMs: options.batchTargetMs,
        ...options.split,
        onProgress: (p, r) => {
          progress = p;
          report = r;
          options.onProgress?.(p, r);
          this.wake();
        },
        persist: async (tx, p, r, c) => {
          // Checked inside each chunk's transaction, before it commits: a run whose lease another
          // run took over (after it expired) writes nothing more — this chunk rolls back.
          if (leaseLost || !(await this.leases.acquire(tx.db, IMPORT_JOB, holder, this.clock.now(), IMPORT_LEASE_MS))) {
            leaseLost = true;
            throw new ImportLeaseLostError();
          }
          conversations = c;
          await this.jobs.saveProgress(tx.db, jobId, {
            progress: JSON.stringify(p),
            report: JSON.stringify(r),
            conversations: JSON.stringify(c),
            updatedAt: this.clock.now(),
          });
        },
      });
      progress = result.progress;
      report = result.report;
      conversations = result.conversations;
      options.done?.(result);
    } catch (error) {
      state = error instanceof ImportAbortedError || error instanceof ImportLeaseLostError ? 'interrupted' : 'failed';
      if (error instanceof ImportLeaseLostError) this.logger.warn('import lost its lease and stopped', { jobId });
      const domain = toDomainError(error);
      failure = domain instanceof DomainError ? domain.message : 'internal error (see the server log)';
      if (!(domain instanceof DomainError)) this.logger.error('import failed', { jobId, error: String(error) });
      if (options.rethrow) {
        await this.finish(jobId, holder, state, progress, report, conversations, failure);
        throw domain;
      }
    } finally {
      clearInterval(heartbeat);
    }
    await this.finish(jobId, holder, state, progress, report, conversations, failure);
  }

  private async finish(
    jobId: string,
    holder: string,
    state: string,
    progress: ImportProgress,
    report: ImportReport,
    conversations: { id: string; title: string | null }[],
    error: string | null,
  ): Promise<void> {
    try {
      await this.uow.run(null, async (tx) => {
        await this.jobs.finish(tx.db, jobId, {
          state,
          progress: JSON.stringify(progress),
          report: JSON.stringify(report),
          conversations: JSON.stringify(conversations),
          error,
          finishedAt: this.clock.now(),
        });
        await this.leases.release(tx.db, IMPORT_JOB, holder);
      });
    } catch (failure) {
      // The lease expires by itself; the row reads as interrupted once its heartbeat is old.
      this.logger.error('import could not record its end', { jobId, error: String(failure) });
    }
    this.wake();
  }

  private toJob(row: ImportJobRow): ImportJob {
    const stale = row.state === 'running' && Number(row.updated_at) < this.clock.now() - IMPORT_LEASE_MS;
    return {
      id: row.id,
      kind: 'hermes',
      state: stale ? 'interrupted' : (row.state as ImportJob['state']),
      dryRun: Number(row.dry_run) === 1,
      profile: row.profile,
      onConflict: row.on_conflict as OnConflict,
      fileName: row.file_name,
      fileBytes: Number(row.file_bytes),
      progress: JSON.parse(row.progress) as ImportProgress,
      report: JSON.parse(row.report) as ImportReport,
      conversations: JSON.parse(row.conversations) as { id: string; title: string | null }[],
      error: stale ? 'the process running this import stopped; import the same file again to resume' : row.error,
      createdAt: toIso(Number(row.created_at)),
      startedAt: toIsoOrNull(row.started_at === null ? null : Number(row.started_at)),
      finishedAt: toIsoOrNull(row.finished_at === null ? null : Number(row.finished_at)),
      updatedAt: toIso(Number(row.updated_at)),
    };
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
    this.waiters.clear();
  }

  private waitForChange(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, WATCH_POLL_MS);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * True only when the lease holder's process is provably gone: same host, and no such process.
 * A holder on another host, or a process that may have been reused, waits for the lease to expire.
 */
function holderIsGone(holder: string): boolean {
  const match = /^import:[^@]+@(.+):(\d+)$/.exec(holder);
  if (!match || match[1] !== hostname()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
