import type { BeginTurnRequest, RenewTurnRequest, Turn } from '@statehouse/contracts';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { reopenVerdict } from '../domain/end-reasons.js';
import { gatewayOwnership } from '../domain/gateway-owner.js';
import type { HookRegistry } from '../domain/hook-registry.js';
import { SessionLifecycle } from '../domain/session-lifecycle.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { SessionLeaseRepository } from '../repositories/session-lease.repository.js';
import { canAccessProfile } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { NotFoundError, SessionBusyError, SessionClosedError, StaleGenerationError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';

/**
 * Turn leases: beginning a turn takes a lease (holder, TTL) and bumps `generation` — the fencing
 * token a worker presents with its appends. While a lease is live the session is busy; an expired
 * lease is reclaimed by whoever begins next.
 */
export class TurnService {
  private readonly sessions: SessionRepository;
  private readonly leases: SessionLeaseRepository;
  private readonly lifecycle: SessionLifecycle;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    dialect: SqlDialect,
    hooks: HookRegistry | null = null,
  ) {
    this.sessions = new SessionRepository(dialect);
    this.leases = new SessionLeaseRepository(dialect);
    this.lifecycle = new SessionLifecycle(this.sessions, hooks);
  }

  async begin(ctx: OperationContext, sessionId: string, request: BeginTurnRequest): Promise<Turn> {
    return this.uow.run(ctx, async (tx) => {
      const row = await this.visibleRow(tx, ctx, sessionId);
      const now = this.clock.now();
      // A turn proves liveness: it may clear an automatic end stamp, never a deliberate one.
      const verdict = reopenVerdict(row.end_reason);
      if (row.ended_at !== null && verdict !== 'allowed') {
        throw new SessionClosedError(
          `the session ended (${row.end_reason}); reopen it explicitly or continue elsewhere`,
        );
      }
      const turnId = this.ids.next();
      const expiresAt = now + request.ttlSeconds * 1000;
      const owner = request.gatewayId ? await gatewayOwnership(tx.db, request.gatewayId, row.profile) : undefined;
      const taken = await this.leases.beginTurn(
        tx.db,
        sessionId,
        { turnId, holder: request.holder, expiresAt },
        now,
        row.ended_at !== null,
        owner,
      );
      if (!taken) {
        throw new SessionBusyError(
          `a turn held by ${row.lease_holder} is live until ${new Date(Number(row.lease_expires_at)).toISOString()}`,
        );
      }
      const updated = (await this.sessions.findById(tx.db, sessionId))!;
      if (row.ended_at !== null) this.lifecycle.announceReopened(tx, row, 'turn', Number(updated.revision));
      return {
        turnId,
        holder: request.holder,
        generation: Number(updated.generation),
        revision: Number(updated.revision),
        expiresAt: toIso(expiresAt),
      };
    });
  }

  /** Extends the live lease of this turn; a turn that expired or was superseded is stale. */
  async renew(ctx: OperationContext, sessionId: string, turnId: string, request: RenewTurnRequest): Promise<Turn> {
    return this.uow.run(ctx, async (tx) => {
      const row = await this.visibleRow(tx, ctx, sessionId);
      const now = this.clock.now();
      const expiresAt = now + request.ttlSeconds * 1000;
      if (!(await this.leases.renewTurn(tx.db, sessionId, turnId, expiresAt, now))) {
        throw new StaleGenerationError(Number(row.generation));
      }
      const updated = (await this.sessions.findById(tx.db, sessionId))!;
      return {
        turnId,
        holder: updated.lease_holder!,
        generation: Number(updated.generation),
        revision: Number(updated.revision),
        expiresAt: toIso(expiresAt),
      };
    });
  }

  /**
   * Completing releases the lease. Completing the latest turn again is a no-op (a retry); completing
   * a turn that a newer one superseded is stale (docs/domain.md §4.6).
   */
  async complete(ctx: OperationContext, sessionId: string, turnId: string): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const row = await this.visibleRow(tx, ctx, sessionId);
      if (row.lease_turn_id !== turnId) throw new StaleGenerationError(Number(row.generation));
      await this.leases.completeTurn(tx.db, sessionId, turnId);
    });
  }

  private async visibleRow(tx: Tx, ctx: OperationContext, sessionId: string) {
    const row = await this.sessions.findByIdForUpdate(tx.db, sessionId);
    if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
    return row;
  }
}
