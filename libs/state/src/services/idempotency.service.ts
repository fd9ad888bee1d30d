import type { Principal } from '@statehouse/contracts';
import { ChunkSizer } from '../db/chunks.js';
import type { Db } from '../db/database.js';
import { IdempotencyRepository } from '../db/idempotency.repository.js';
import { isUniqueViolation } from '../db/sql-dialect.js';
import { principalKey } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { IdempotencyClaim } from '../shared/context.js';
import { IdempotencyConflictError, IdempotencyRaceError } from '../shared/errors.js';
import type { JobContext, JobDefinition } from './job.service.js';

/** Keys are kept at least this long (docs/api.md: at least 24 h). */
export const IDEMPOTENCY_RETENTION_MS = 48 * 60 * 60 * 1000;

export const IDEMPOTENCY_PURGE_JOB = 'idempotency-purge';

export type IdempotencyLookup = { kind: 'new' } | { kind: 'replay'; status: number; body: unknown };

export class IdempotencyService {
  private readonly repository = new IdempotencyRepository();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** A stored response for the same request replays; the same key with another request is refused. */
  async lookup(principal: Principal, key: string, fingerprint: string): Promise<IdempotencyLookup> {
    const record = await this.repository.find(this.db, principalKey(principal), key);
    if (!record) return { kind: 'new' };
    if (record.created_at < this.clock.now() - IDEMPOTENCY_RETENTION_MS) {
      await this.repository.delete(this.db, record.principal_key, record.idempotency_key);
      return { kind: 'new' };
    }
    if (record.fingerprint !== fingerprint) throw new IdempotencyConflictError();
    return { kind: 'replay', status: record.status, body: record.body === null ? undefined : JSON.parse(record.body) };
  }

  /** True when a live record exists under this key (whatever request it was for). */
  async recorded(principal: Principal, key: string): Promise<boolean> {
    const record = await this.repository.find(this.db, principalKey(principal), key);
    return record !== undefined && record.created_at >= this.clock.now() - IDEMPOTENCY_RETENTION_MS;
  }

  /**
   * For operations that wrote nothing transactional (or answered without a unit of work): record
   * the response after the fact. A concurrent twin that recorded first wins.
   */
  async recordLate(principal: Principal, claim: IdempotencyClaim, body: unknown): Promise<void> {
    if (claim.recorded) return;
    try {
      await this.repository.insert(this.db, {
        principal_key: principalKey(principal),
        idempotency_key: claim.key,
        fingerprint: claim.fingerprint,
        status: claim.status,
        body: body === undefined ? null : JSON.stringify(body),
        created_at: this.clock.now(),
      });
      claim.recorded = true;
    } catch (error) {
      if (isUniqueViolation(error)) throw new IdempotencyRaceError();
      throw error;
    }
  }

  /**
   * Deletes records past the retention window in bounded chunks (each its own short write), so a
   * backlog of millions never holds the write lock for long. `between` runs between chunks.
   */
  async purgeExpired(between: (lastChunkMs: number) => Promise<void> = async () => undefined): Promise<number> {
    const cutoff = this.clock.now() - IDEMPOTENCY_RETENTION_MS;
    const sizer = new ChunkSizer(1000, 100, 20_000);
    let total = 0;
    for (;;) {
      const started = performance.now();
      const deleted = await this.repository.deleteCreatedBefore(this.db, cutoff, sizer.size);
      const elapsed = performance.now() - started;
      total += deleted;
      if (deleted < sizer.size) return total;
      sizer.record(elapsed, deleted);
      await between(elapsed);
    }
  }

  /** The scheduled purge (one pass per interval across processes). */
  job(intervalMs: number): JobDefinition {
    return {
      name: IDEMPOTENCY_PURGE_JOB,
      intervalMs,
      run: async (context: JobContext) => ({ deleted: await this.purgeExpired((ms) => context.checkpoint(ms)) }),
    };
  }
}
