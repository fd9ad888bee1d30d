import type { Selectable } from 'kysely';
import { updatedOne } from '../db/compare-and-set.js';
import type { Executor, JobRunsTable } from '../db/database.js';

export interface JobRunRow {
  job: string;
  intervalStart: number;
  intervalEnd: number;
  status: 'running' | 'done' | 'failed';
  holder: string;
  leaseExpiresAt: number;
  attempts: number;
  startedAt: number;
  finishedAt: number | null;
  summary: Record<string, unknown> | null;
  error: string | null;
}

export interface ClaimRequest {
  job: string;
  intervalStart: number;
  intervalEnd: number;
  holder: string;
  now: number;
  leaseMs: number;
}

/**
 * Leases per (job, interval). Claims are conditional writes decided by the database: the insert of
 * the interval's row, or the takeover of a row whose lease has expired (its holder crashed or its
 * pass failed); a finished interval is never claimed again.
 */
export class JobRunRepository {
  async find(db: Executor, job: string, intervalStart: number): Promise<JobRunRow | null> {
    const row = await db
      .selectFrom('job_runs')
      .selectAll()
      .where('job', '=', job)
      .where('interval_start', '=', intervalStart)
      .executeTakeFirst();
    return row ? toJobRun(row) : null;
  }

  /** A pass of an earlier interval still holds a live lease: the job never overlaps itself. */
  async earlierRunning(db: Executor, job: string, intervalStart: number, now: number): Promise<boolean> {
    const row = await db
      .selectFrom('job_runs')
      .select('interval_start')
      .where('job', '=', job)
      .where('interval_start', '<', intervalStart)
      .where('status', '=', 'running')
      .where('lease_expires_at', '>', now)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The attempt number when this holder now owns the interval, else null (served, held by another
   * process, or an earlier interval's pass is still running — an overrun interval is skipped).
   */
  async claim(db: Executor, request: ClaimRequest): Promise<number | null> {
    if (await this.earlierRunning(db, request.job, request.intervalStart, request.now)) return null;
    const inserted = await db
      .insertInto('job_runs')
      .values({
        job: request.job,
        interval_start: request.intervalStart,
        interval_end: request.intervalEnd,
        status: 'running',
        holder: request.holder,
        lease_expires_at: request.now + request.leaseMs,
        attempts: 1,
        started_at: request.now,
        finished_at: null,
        summary: null,
        error: null,
      })
      .onConflict((oc) => oc.columns(['job', 'interval_start']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return 1;
    const taken = await db
      .updateTable('job_runs')
      .set((eb) => ({
        holder: request.holder,
        status: 'running',
        lease_expires_at: request.now + request.leaseMs,
        attempts: eb('attempts', '+', 1),
        started_at: request.now,
        finished_at: null,
        error: null,
      }))
      .where('job', '=', request.job)
      .where('interval_start', '=', request.intervalStart)
      .where('status', 'in', ['running', 'failed'])
      .where('lease_expires_at', '<=', request.now)
      .returning('attempts')
      .executeTakeFirst();
    return taken ? Number(taken.attempts) : null;
  }

  async renew(db: Executor, job: string, intervalStart: number, holder: string, expiresAt: number): Promise<boolean> {
    return updatedOne(this.heldRun(db, job, intervalStart, holder).set({ lease_expires_at: expiresAt }));
  }

  async finish(
    db: Executor,
    job: string,
    intervalStart: number,
    holder: string,
    now: number,
    summary: Record<string, unknown> | null,
  ): Promise<boolean> {
    return updatedOne(
      this.heldRun(db, job, intervalStart, holder).set({
        status: 'done',
        finished_at: now,
        lease_expires_at: now,
        summary: summary === null ? null : JSON.stringify(summary),
      }),
    );
  }

  /** A failed pass: the interval may be retried (by any process) once `retryAt` has passed. */
  async fail(
    db: Executor,
    job: string,
    intervalStart: number,
    holder: string,
    now: number,
    retryAt: number,
    error: string,
  ): Promise<void> {
    await this.heldRun(db, job, intervalStart, holder)
      .set({ status: 'failed', finished_at: now, lease_expires_at: retryAt, error: error.slice(0, 2000) })
      .execute();
  }

  /** The running pass of (job, interval) this holder leases: what it renews, finishes or fails. */
  private heldRun(db: Executor, job: string, intervalStart: number, holder: string) {
    return db
      .updateTable('job_runs')
      .where('job', '=', job)
      .where('interval_start', '=', intervalStart)
      .where('holder', '=', holder)
      .where('status', '=', 'running');
  }

  async purgeBefore(db: Executor, job: string, before: number): Promise<void> {
    await db.deleteFrom('job_runs').where('job', '=', job).where('interval_start', '<', before).execute();
  }

  async recent(db: Executor, limit: number, job?: string): Promise<JobRunRow[]> {
    let query = db.selectFrom('job_runs').selectAll();
    if (job) query = query.where('job', '=', job);
    const rows = await query.orderBy('started_at', 'desc').orderBy('job').limit(limit).execute();
    return rows.map(toJobRun);
  }
}

function toJobRun(row: Selectable<JobRunsTable>): JobRunRow {
  return {
    job: row.job,
    intervalStart: Number(row.interval_start),
    intervalEnd: Number(row.interval_end),
    status: row.status as JobRunRow['status'],
    holder: row.holder,
    leaseExpiresAt: Number(row.lease_expires_at),
    attempts: Number(row.attempts),
    startedAt: Number(row.started_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    summary: row.summary === null ? null : (JSON.parse(row.summary) as Record<string, unknown>),
    error: row.error,
  };
}
