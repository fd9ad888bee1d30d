import { DeadlineExceededError, DomainError, StoreUnavailableError } from './errors.js';

const SQLITE_UNAVAILABLE = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_PROTOCOL',
];
// Connection failures, admin shutdown, lock/statement timeouts, disk full, too many connections.
const PG_UNAVAILABLE_CLASSES = ['08', '53', '57', '58'];
const PG_UNAVAILABLE_CODES = ['55P03', '40P01'];
const NODE_NET = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE'];

/**
 * Infrastructure failures become `store_unavailable` (503 + Retry-After): the operation failed
 * closed, nothing half-written. Everything else stays as it is (a bug → 500, logged).
 */
export function toDomainError(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  const e = error as { code?: unknown; message?: unknown } | null | undefined;
  // Drivers and Node put strings here, but not every thrower does (a numeric errno, a status): read
  // whatever is there as text rather than fail on it and replace the real error with a TypeError.
  const rawCode = e?.code;
  const rawMessage = e?.message;
  const code = typeof rawCode === 'string' ? rawCode : rawCode == null ? '' : String(rawCode);
  const message = typeof rawMessage === 'string' ? rawMessage : '';
  // PostgreSQL stopped a statement at statement_timeout: the read's deadline, not an outage.
  if (code === '57014' && /statement timeout/i.test(message)) {
    return new DeadlineExceededError(null, 'statement_timeout', { cause: error });
  }
  // A prepared statement planned before another replica's migration changed its table: retried, it
  // runs unnamed (db/pg-prepared-pool.ts).
  if (code === '0A000' && /cached plan must not change result type/i.test(message)) {
    return new StoreUnavailableError('the store is unavailable; retry later', { cause: error });
  }
  if (
    SQLITE_UNAVAILABLE.some((prefix) => code.startsWith(prefix)) ||
    PG_UNAVAILABLE_CODES.includes(code) ||
    (code.length === 5 && PG_UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) ||
    NODE_NET.includes(code) ||
    /Connection terminated|timeout exceeded when trying to connect|The database connection is not open|driver has already been destroyed|Cannot use a pool after calling end/i.test(
      message,
    )
  ) {
    return new StoreUnavailableError('the store is unavailable; retry later', { cause: error });
  }
  return error;
}
