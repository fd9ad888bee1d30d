import { sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';

export interface FailureCount {
  count: number;
  /** When the latest of them was reserved (null when none). */
  latestAt: number | null;
}

/**
 * Login attempts (reserved before the password check) and the addresses accounts signed in from.
 * A `pending` row counts as a failure until its check resolves it.
 */
export class LoginAttemptRepository {
  constructor(private readonly dialect: Dialect) {}

  /**
   * Serialises attempts on one account and on one address across processes. SQLite write
   * transactions are already exclusive (BEGIN IMMEDIATE); PostgreSQL takes transaction-scoped
   * advisory locks, always the account's before the address's, so two attempts never wait on
   * each other in opposite orders.
   */
  async lockSubjects(db: Executor, account: string, address: string): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await sql`select pg_advisory_xact_lock(hashtextextended(${`login:account:${account}`}, 0))`.execute(db);
    await sql`select pg_advisory_xact_lock(hashtextextended(${`login:address:${address}`}, 0))`.execute(db);
  }

  async failuresSince(
    db: Executor,
    subject: { account?: string; address?: string },
    since: number,
  ): Promise<FailureCount> {
    let query = db
      .selectFrom('login_attempts')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('at').as('latest')])
      .where('at', '>', since);
    if (subject.account !== undefined) query = query.where('account', '=', subject.account);
    if (subject.address !== undefined) query = query.where('address', '=', subject.address);
    const row = await query.executeTakeFirstOrThrow();
    return { count: Number(row.n), latestAt: row.latest === null ? null : Number(row.latest) };
  }

  async reserve(db: Executor, account: string, address: string, at: number): Promise<number> {
    const row = await db
      .insertInto('login_attempts')
      .values({ account, address, state: 'pending', at })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async markFailed(db: Executor, id: number): Promise<void> {
    await db.updateTable('login_attempts').set({ state: 'failed' }).where('id', '=', id).execute();
  }

  /**
   * A success from this address: its own reservation and the pair's settled failures go. Other
   * addresses' failures — and attempts of this pair still in flight — stay counted.
   */
  async clearPair(db: Executor, account: string, address: string, reservation: number): Promise<void> {
    await db
      .deleteFrom('login_attempts')
      .where('account', '=', account)
      .where('address', '=', address)
      .where((eb) => eb.or([eb('state', '=', 'failed'), eb('id', '=', reservation)]))
      .execute();
  }

  async deleteBefore(db: Executor, cutoff: number): Promise<void> {
    await db.deleteFrom('login_attempts').where('at', '<=', cutoff).execute();
  }

  async isKnownAddress(db: Executor, account: string, address: string, since: number): Promise<boolean> {
    const row = await db
      .selectFrom('login_known_addresses')
      .select('account')
      .where('account', '=', account)
      .where('address', '=', address)
      .where('last_success_at', '>', since)
      .executeTakeFirst();
    return row !== undefined;
  }

  async rememberAddress(db: Executor, account: string, address: string, at: number): Promise<void> {
    await db
      .insertInto('login_known_addresses')
      .values({ account, address, last_success_at: at })
      .onConflict((oc) => oc.columns(['account', 'address']).doUpdateSet({ last_success_at: at }))
      .execute();
  }

  async forgetAddressesBefore(db: Executor, cutoff: number): Promise<void> {
    await db.deleteFrom('login_known_addresses').where('last_success_at', '<=', cutoff).execute();
  }
}
