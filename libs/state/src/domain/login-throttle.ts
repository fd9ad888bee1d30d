import type { Dialect } from '../db/database.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { LoginAttemptRepository } from '../repositories/login-attempt.repository.js';
import { RateLimitedError } from '../shared/errors.js';
import { clientAddressKey } from './client-address.js';

/**
 * The login limits (docs/security.md, "Login throttling"). Failures — and attempts still being
 * checked — are counted per account and per client address; once a subject has used its free
 * failures, each further attempt must wait 2^(failures − free) seconds after the latest one,
 * never more than `maxDelaySeconds`. Delays, not a wall: the owner of an account is never locked
 * out for longer than the cap, and from an address the account signed in from before, only that
 * address's own failures count against the account.
 */
export const LOGIN_THROTTLE = Object.freeze({
  /** Failures of one account (from addresses it never signed in from) before delays begin. */
  accountFreeFailures: 5,
  accountWindowMs: 24 * 60 * 60 * 1000,
  /** Failures from one address, whatever the accounts, before delays begin (stops sprays). */
  addressFreeFailures: 10,
  addressWindowMs: 60 * 60 * 1000,
  maxDelaySeconds: 300,
  /** How long a successful sign-in makes an address "known" to the account. */
  knownAddressMs: 30 * 24 * 60 * 60 * 1000,
});

/** How long the next attempt must wait, in ms (0 = now), after `count` failures, the latest at `latestAt`. */
export function throttleWaitMs(count: number, latestAt: number | null, freeFailures: number, now: number): number {
  if (count < freeFailures || latestAt === null) return 0;
  const delaySeconds = Math.min(2 ** (count - freeFailures), LOGIN_THROTTLE.maxDelaySeconds);
  return Math.max(0, latestAt + delaySeconds * 1000 - now);
}

/** A reserved attempt: resolve it with `failed` or `succeeded` once the password was checked. */
export interface LoginReservation {
  id: number;
  account: string;
  address: string;
  at: number;
}

export class LoginThrottle {
  private readonly attempts: LoginAttemptRepository;

  constructor(
    private readonly uow: UnitOfWork,
    dialect: Dialect,
  ) {
    this.attempts = new LoginAttemptRepository(dialect);
  }

  /**
   * Reserves an attempt before the (slow) password check, atomically with the decision: under the
   * subject locks, count what is already reserved or failed, refuse with `rate_limited` (nothing
   * recorded) or record a pending attempt. Parallel requests therefore see each other.
   */
  async reserve(username: string, clientAddress: string, now: number): Promise<LoginReservation> {
    const account = username.toLowerCase();
    const address = clientAddressKey(clientAddress);
    return this.uow.run(null, async (tx) => {
      await this.attempts.lockSubjects(tx.db, account, address);
      const known = await this.attempts.isKnownAddress(tx.db, account, address, now - LOGIN_THROTTLE.knownAddressMs);
      const byAccount = await this.attempts.failuresSince(
        tx.db,
        known ? { account, address } : { account },
        now - LOGIN_THROTTLE.accountWindowMs,
      );
      const byAddress = await this.attempts.failuresSince(tx.db, { address }, now - LOGIN_THROTTLE.addressWindowMs);
      const waitMs = Math.max(
        throttleWaitMs(byAccount.count, byAccount.latestAt, LOGIN_THROTTLE.accountFreeFailures, now),
        throttleWaitMs(byAddress.count, byAddress.latestAt, LOGIN_THROTTLE.addressFreeFailures, now),
      );
      if (waitMs > 0) throw new RateLimitedError(Math.max(1, Math.ceil(waitMs / 1000)));
      await this.attempts.deleteBefore(tx.db, now - LOGIN_THROTTLE.accountWindowMs);
      const id = await this.attempts.reserve(tx.db, account, address, now);
      return { id, account, address, at: now };
    });
  }

  async failed(reservation: LoginReservation): Promise<void> {
    await this.uow.run(null, (tx) => this.attempts.markFailed(tx.db, reservation.id));
  }

  /** Runs inside the caller's sign-in transaction, so the session and the bookkeeping commit together. */
  async succeeded(db: Parameters<LoginAttemptRepository['clearPair']>[0], reservation: LoginReservation, now: number) {
    await this.attempts.clearPair(db, reservation.account, reservation.address, reservation.id);
    await this.attempts.rememberAddress(db, reservation.account, reservation.address, now);
    await this.attempts.forgetAddressesBefore(db, now - LOGIN_THROTTLE.knownAddressMs);
  }
}
