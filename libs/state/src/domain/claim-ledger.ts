import type { Db, Executor } from '../db/database.js';
import { isUniqueViolation } from '../db/sql-dialect.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { canAccessProfile } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { type DomainError, NotFoundError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { toDomainError } from '../shared/store-errors.js';

/** When a lease taken at `now` for `leaseSeconds` lapses. */
export const leaseExpiry = (now: number, leaseSeconds: number) => now + leaseSeconds * 1000;

/** A claim whose lease has not lapsed at `now`. */
export const claimIsLive = (row: { claim_expires_at: number | null }, now: number) =>
  row.claim_expires_at !== null && Number(row.claim_expires_at) > now;

/**
 * A create that is idempotent by id: a concurrent twin that inserted the same id first makes the
 * insert fail, and the create runs again — answered as a retry of it would be.
 */
export async function createOnce<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (isUniqueViolation(error)) return attempt();
    throw error;
  }
}

/** The columns a claimable row carries: its owner's profile, its state and its lease. */
export interface ClaimableRow {
  id: string;
  profile: string;
  state: string;
  claim_id: string | null;
  claim_holder: string | null;
  claim_expires_at: number | null;
}

interface NewClaim {
  claimId: string;
  holder: string;
  expiresAt: number;
  now: number;
}

/** A repository of claimable rows. Claims are compare-and-set: the WHERE clause decides who gets one. */
export interface ClaimRepository<Row> {
  find(db: Executor, id: string): Promise<Row | undefined>;
  /** Reads the row and, on PostgreSQL, locks it for the rest of the transaction. */
  findForUpdate(db: Executor, id: string): Promise<Row | undefined>;
  /** Takes a new claim if — in this very statement — the row may be claimed. */
  claim(db: Executor, id: string, claim: NewClaim): Promise<boolean>;
  /** The holder of a live claim asks again: the lease is extended, no new attempt is counted. */
  extendClaim(db: Executor, id: string, holder: string, expiresAt: number, now: number): Promise<boolean>;
}

/** The ledger's refusals, by what they answer. */
export interface ClaimRefusals {
  /** Nothing (more) to claim or settle in this state (`409 delivery_settled`). */
  settled: new (
    state: string,
  ) => DomainError;
  /** Another holder's claim is live (`409 delivery_claimed`). */
  claimed: new (
    holder: string,
    until: string,
  ) => DomainError;
  /** The claim presented is not the row's own (`409 claim_expired`). */
  expired: new () => DomainError;
}

/** What tells one ledger of claimable work from another: its rows, its answer and its refusals. */
export interface ClaimRules<Row extends ClaimableRow, View> {
  repository: ClaimRepository<Row>;
  /** What a row the caller may not see is answered as (404). */
  noun: string;
  view(row: Row, now: number): View;
  /** The row has a claim to take or settle: not yet, or no longer, settled. */
  isOpen(row: Row): boolean;
  /** The row is under a live claim at `now`. */
  isLive(row: Row, now: number): boolean;
  /** The state a row under a claim is in, when its state says so. */
  claimedState?: string;
  refusals: ClaimRefusals;
  /** Before a new claim is taken: false when the row may not be claimed any more (and was settled so). */
  mayTake?(db: Executor, row: Row, now: number): Promise<boolean>;
  /**
   * A claim of one row lost because taking it settled the row (`mayTake`): refused as settled once
   * the transaction commits, so that the settlement stays.
   */
  settledByLoss?(current: Row): boolean;
}

interface LedgerDeps {
  db: Db;
  uow: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
}

/**
 * Work claimed under a lease, owner-fenced by the row's profile (delivery obligations, the wake-ups
 * delegations owe): one live claim at a time, each a compare-and-set; the holder of a live claim
 * asking again extends it; the claimer reports under its claim id, and only the row's own claim
 * settles it.
 */
export class ClaimLedger<Row extends ClaimableRow, View> {
  constructor(
    private readonly deps: LedgerDeps,
    private readonly rules: ClaimRules<Row, View>,
  ) {}

  async get(ctx: OperationContext, id: string): Promise<View> {
    try {
      return this.rules.view(await this.visible(this.deps.db, ctx, id), this.deps.clock.now());
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** A row of the caller's profiles (locked for the transaction with `lock`), else 404. */
  async visible(db: Executor, ctx: OperationContext, id: string, lock = false): Promise<Row> {
    const { repository } = this.rules;
    const row = lock ? await repository.findForUpdate(db, id) : await repository.find(db, id);
    if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError(this.rules.noun);
    return row;
  }

  /** Claims one row for `holder` under a lease: refused while another holder's claim is live. */
  async claim(ctx: OperationContext, id: string, request: { holder: string; leaseSeconds: number }): Promise<View> {
    const { rules } = this;
    const { repository } = rules;
    const outcome = await this.deps.uow.run(ctx, async (tx): Promise<{ view: View } | { refusal: DomainError }> => {
      const now = this.deps.clock.now();
      const row = await this.visible(tx.db, ctx, id, true);
      this.assertOpen(row);
      const expiresAt = leaseExpiry(now, request.leaseSeconds);
      if (rules.isLive(row, now)) {
        if (row.claim_holder === request.holder) {
          await repository.extendClaim(tx.db, id, request.holder, expiresAt, now);
          return { view: await this.reread(tx.db, id, now) };
        }
        throw new rules.refusals.claimed(row.claim_holder!, toIso(Number(row.claim_expires_at)));
      }
      if (!(await this.take(tx.db, row, request.holder, expiresAt, now))) {
        const current = (await repository.find(tx.db, id))!;
        if (rules.settledByLoss?.(current)) return { refusal: new rules.refusals.settled(current.state) };
        const holder = current.claim_holder ?? 'another worker';
        throw new rules.refusals.claimed(holder, toIso(Number(current.claim_expires_at)));
      }
      return { view: await this.reread(tx.db, id, now) };
    });
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.view;
  }

  /** Claims up to `limit` of the `candidates` (read at `now`), in their order. */
  claimEach(
    ctx: OperationContext,
    request: { holder: string; leaseSeconds: number; limit: number },
    candidates: (db: Executor, now: number) => Promise<Row[]>,
  ): Promise<{ items: View[] }> {
    return this.deps.uow.run(ctx, async (tx) => {
      const now = this.deps.clock.now();
      const expiresAt = leaseExpiry(now, request.leaseSeconds);
      const claimed: View[] = [];
      for (const candidate of await candidates(tx.db, now)) {
        if (claimed.length >= request.limit) break;
        // Each claim is its own compare-and-set: a concurrent worker that took it first wins.
        if (await this.take(tx.db, candidate, request.holder, expiresAt, now)) {
          claimed.push(await this.reread(tx.db, candidate.id, now));
        }
      }
      return { items: claimed };
    });
  }

  /**
   * The claimer reports under its claim: `apply` runs only for the row's own claim. A report that
   * `settled` the row already (the same one again) is answered as it stands.
   */
  settle(
    ctx: OperationContext,
    id: string,
    claimId: string,
    apply: (db: Executor, row: Row, now: number) => Promise<unknown>,
    settled?: (row: Row) => boolean,
  ): Promise<View> {
    return this.deps.uow.run(ctx, async (tx) => {
      const now = this.deps.clock.now();
      const row = await this.visible(tx.db, ctx, id, true);
      if (settled?.(row) && row.claim_id === claimId) return this.rules.view(row, now);
      this.assertOpen(row);
      const { claimedState } = this.rules;
      if ((claimedState !== undefined && row.state !== claimedState) || row.claim_id !== claimId) {
        throw new this.rules.refusals.expired();
      }
      await apply(tx.db, row, now);
      return this.reread(tx.db, id, now);
    });
  }

  /** The row as it stands now, answered. */
  async reread(db: Executor, id: string, now: number): Promise<View> {
    return this.rules.view((await this.rules.repository.find(db, id))!, now);
  }

  private assertOpen(row: Row): void {
    if (!this.rules.isOpen(row)) throw new this.rules.refusals.settled(row.state);
  }

  private async take(db: Executor, row: Row, holder: string, expiresAt: number, now: number): Promise<boolean> {
    if (this.rules.mayTake && !(await this.rules.mayTake(db, row, now))) return false;
    return this.rules.repository.claim(db, row.id, { claimId: this.deps.ids.next(), holder, expiresAt, now });
  }
}
