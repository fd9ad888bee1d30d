import type { Session } from '@statehouse/contracts';
import type { SessionRow } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { SessionRepository, toSession } from '../repositories/session.repository.js';
import { canAccessProfile } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { ConflictError, NotFoundError, RevisionConflictError } from '../shared/errors.js';
import { DEFAULT_RUNTIME_WINDOWS } from '../shared/runtime.js';

type HandoffState = 'pending' | 'running' | 'completed' | 'failed';

/** Handoffs expired per transaction by a sweep. */
const EXPIRY_BATCH = 500;

/**
 * Moving a live conversation to another surface: `pending → running → completed | failed`
 * (docs/domain.md §10.4). A request is allowed from no handoff, completed or failed — and from a
 * `running` handoff older than the handoff timeout, which has expired (a sweep marks those
 * `failed` with `expired` as well). Every step is a compare-and-set, so two surfaces cannot both
 * claim one handoff. A completed handoff makes its row recoverable.
 */
export class HandoffService {
  private readonly sessions: SessionRepository;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    dialect: SqlDialect,
    private readonly handoffTimeoutMs: number = DEFAULT_RUNTIME_WINDOWS.handoffTimeoutMs,
  ) {
    this.sessions = new SessionRepository(dialect);
  }

  request(ctx: OperationContext, id: string, platform: string, preconditions: Preconditions): Promise<Session> {
    return this.transition(
      ctx,
      id,
      [null, 'completed', 'failed'],
      { state: 'pending', platform, error: null },
      preconditions,
      true,
    );
  }

  claim(ctx: OperationContext, id: string, preconditions: Preconditions): Promise<Session> {
    return this.transition(ctx, id, ['pending'], { state: 'running' }, preconditions);
  }

  complete(ctx: OperationContext, id: string, preconditions: Preconditions): Promise<Session> {
    return this.transition(ctx, id, ['running'], { state: 'completed', error: null }, preconditions);
  }

  fail(ctx: OperationContext, id: string, error: string, preconditions: Preconditions): Promise<Session> {
    return this.transition(ctx, id, ['pending', 'running'], { state: 'failed', error }, preconditions);
  }

  /** Fails every `running` handoff older than the timeout with `expired`; returns their session ids. */
  async expireStale(timeoutMs: number = this.handoffTimeoutMs): Promise<string[]> {
    const expired: string[] = [];
    for (;;) {
      const batch = await this.uow.run(null, async (tx) => {
        const now = this.clock.now();
        return this.sessions.expireRunningHandoffs(tx.db, now - timeoutMs, now, EXPIRY_BATCH);
      });
      expired.push(...batch);
      if (batch.length < EXPIRY_BATCH) return expired;
    }
  }

  private transition(
    ctx: OperationContext,
    id: string,
    from: (HandoffState | null)[],
    to: { state: HandoffState; platform?: string; error?: string | null },
    preconditions: Preconditions,
    expireFirst = false,
  ): Promise<Session> {
    return this.uow.run(ctx, async (tx) => {
      const row = await this.sessions.findByIdForUpdate(tx.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
      const now = this.clock.now();
      if (preconditions.ifMatch !== undefined && preconditions.ifMatch !== Number(row.revision)) {
        throw new RevisionConflictError(Number(row.revision));
      }
      if (expireFirst && this.runningExpired(row, now)) {
        await this.sessions.expireRunningHandoffs(tx.db, now - this.handoffTimeoutMs, now, 1, id);
      }
      // The row is locked (PostgreSQL) or the transaction exclusive (SQLite): no revision check needed.
      const moved = await this.sessions.transitionHandoff(tx.db, id, from, to, now);
      if (!moved) {
        const current = (await this.sessions.findById(tx.db, id))!;
        throw new ConflictError(
          `handoff is ${current.handoff_state ?? 'not requested'}; ${to.state} needs ${from.map((state) => state ?? 'none').join(' or ')}`,
        );
      }
      return this.answer(tx, id, now);
    });
  }

  private runningExpired(row: SessionRow, now: number): boolean {
    return (
      row.handoff_state === 'running' &&
      (row.handoff_updated_at === null || Number(row.handoff_updated_at) < now - this.handoffTimeoutMs)
    );
  }

  private async answer(tx: Tx, id: string, now: number): Promise<Session> {
    return toSession((await this.sessions.findById(tx.db, id))!, now);
  }
}
