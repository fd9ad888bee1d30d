import type { Executor } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';

/**
 * A session's turn lease (docs/domain.md): begun, renewed and completed each in one
 * compare-and-set statement, and the live ones counted.
 */
export class SessionLeaseRepository {
  constructor(private readonly dialect: SqlDialect) {}

  /**
   * Begins a turn: lease + generation and revision bumps in one statement, taken only when no
   * other holder's lease is live (an expired lease is reclaimed by the same statement).
   */
  async beginTurn(
    db: Executor,
    id: string,
    lease: { turnId: string; holder: string; expiresAt: number },
    now: number,
    clearEnd: boolean,
    owner?: { gateway_id: string; gateway_started_at: number },
  ): Promise<boolean> {
    const result = await db
      .updateTable('sessions')
      .set((eb) => ({
        ...(owner ?? {}),
        lease_turn_id: lease.turnId,
        lease_holder: lease.holder,
        lease_expires_at: lease.expiresAt,
        generation: eb('generation', '+', 1),
        revision: eb('revision', '+', 1),
        last_activity_at: this.dialect.greatest(eb.ref('last_activity_at'), now),
        ...(clearEnd ? { ended_at: null, end_reason: null, end_reason_detail: null } : {}),
      }))
      .where('id', '=', id)
      .where('hidden_for', 'is', null)
      .where((eb) =>
        eb.or([
          eb('lease_expires_at', 'is', null),
          eb('lease_expires_at', '<=', now),
          eb('lease_holder', '=', lease.holder),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Extends a live lease of this turn; an expired or superseded turn cannot be renewed. */
  async renewTurn(db: Executor, id: string, turnId: string, expiresAt: number, now: number): Promise<boolean> {
    const result = await db
      .updateTable('sessions')
      .set((eb) => ({ lease_expires_at: expiresAt, revision: eb('revision', '+', 1) }))
      .where('id', '=', id)
      .where('lease_turn_id', '=', turnId)
      .where('lease_expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Releases the lease. The turn id stays on the row as the latest turn, so a retried completion
   * of it is recognised (a no-op) and a completion of an older turn is stale.
   */
  async completeTurn(db: Executor, id: string, turnId: string): Promise<boolean> {
    const result = await db
      .updateTable('sessions')
      .set((eb) => ({
        lease_holder: null,
        lease_expires_at: null,
        revision: eb('revision', '+', 1),
      }))
      .where('id', '=', id)
      .where('lease_turn_id', '=', turnId)
      .where('lease_expires_at', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Sessions holding a live turn lease (the lease index holds only rows with one). */
  async countBusy(db: Executor, now: number, profiles: string[] | null): Promise<number> {
    if (profiles !== null && profiles.length === 0) return 0;
    let query = db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('lease_expires_at', '>', now)
      .where('hidden_for', 'is', null);
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }
}
