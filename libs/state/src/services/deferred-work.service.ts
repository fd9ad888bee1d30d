import type { Db } from '../db/database.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { DeferredWorkRepository } from '../repositories/deferred-work.repository.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { JobDefinition } from './job.service.js';

/**
 * Continues one piece of deferred work in chunks; `between` runs between its chunks. `'later'`:
 * not now (another process is still at it) — the row stays for a later pass.
 */
export type DeferredHandler = (
  subject: string,
  between: (lastChunkMs: number) => Promise<void>,
) => Promise<undefined | 'later'> | Promise<void>;

export const DEFERRED_WORK_JOB = 'deferred-work';

/**
 * Long operations that continue after the transaction that started them: the transaction records
 * the work (`deferred_work`) with its first chunk, this process carries on right after commit in
 * bounded chunks, and the row goes when the work is done. Work a crash interrupted is finished by
 * the `deferred-work` job (in whichever process serves its interval). Handlers must be idempotent:
 * two processes may pick up the same row.
 */
export class DeferredWorkService {
  private readonly handlers = new Map<string, DeferredHandler>();
  private readonly work = new DeferredWorkRepository();
  private draining: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly between: (lastChunkMs: number) => Promise<void>,
  ) {}

  handle(kind: string, handler: DeferredHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Inside the starting transaction; the work begins in this process once it commits. */
  async enqueue(tx: Tx, kind: string, subject: string): Promise<void> {
    await this.work.add(tx.db, kind, subject, this.clock.now());
    tx.afterCommit(() => {
      this.kick();
    });
  }

  /** Inside the transaction that finished the work some other way (a chunked branch revealed). */
  async complete(tx: Tx, kind: string, subject: string): Promise<void> {
    await this.work.remove(tx.db, { kind, subject });
  }

  /** Resolves when nothing is being worked on in this process (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Works through every recorded piece of work (the job; after a crash). */
  async drain(between: (lastChunkMs: number) => Promise<void> = this.between): Promise<number> {
    let done = 0;
    // Rows this pass leaves for a later one (unknown kind, or a handler said `later`).
    const left = new Set<string>();
    const keyOf = (row: { kind: string; subject: string }) => `${row.kind}\n${row.subject}`;
    for (;;) {
      const rows = (await this.work.oldest(this.db, 100 + left.size)).filter((row) => !left.has(keyOf(row)));
      if (rows.length === 0) return done;
      for (const row of rows) {
        const handler = this.handlers.get(row.kind);
        if (!handler) {
          this.logger.warn('deferred work of an unknown kind is left alone', { kind: row.kind });
          left.add(keyOf(row));
          continue;
        }
        if ((await handler(row.subject, between)) === 'later') {
          left.add(keyOf(row));
          continue;
        }
        await this.uow.run(null, (tx) => this.work.remove(tx.db, row));
        done++;
      }
    }
  }

  job(intervalMs: number): JobDefinition {
    return {
      name: DEFERRED_WORK_JOB,
      intervalMs,
      run: async (context) => {
        // One drain at a time in a process: the job's pass waits for a running one, and work enqueued
        // during the pass (a reaped branch handed to the purge) is left to this pass's loop instead
        // of starting a second drain beside it that would race it for the same rows.
        while (this.draining) await this.draining;
        const pass = this.drain((ms) => context.checkpoint(ms));
        this.draining = pass.then(
          () => this.settle(),
          () => this.settle(),
        );
        return { finished: await pass };
      },
    };
  }

  private kick(): void {
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = (async () => {
      do {
        this.again = false;
        await this.drain().catch((error) =>
          this.logger.error('deferred work failed; the deferred-work job retries it', { error: String(error) }),
        );
      } while (this.again);
    })().finally(() => {
      this.draining = undefined;
    });
  }

  /** After the job's pass: a kick that arrived during it starts its own drain now. */
  private settle(): void {
    this.draining = undefined;
    if (this.again) {
      this.again = false;
      this.kick();
    }
  }
}
