import type { Principal } from '@statehouse/contracts';

/**
 * An Idempotency-Key claimed by the caller. The unit of work writes the record in the same
 * transaction as the effect, so a crash can never leave an effect without its record.
 */
export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
  /** HTTP status the replay answers with. */
  status: number;
  recorded: boolean;
}

/** Who is acting and how: every domain service takes it first. */
export interface OperationContext {
  principal: Principal;
  /** `dashboard` for a browser session, `api` for a bearer token, `system` for jobs and the CLI. */
  channel: 'api' | 'dashboard' | 'system';
  idempotency?: IdempotencyClaim;
  requestId?: string;
}

/** Preconditions presented by the caller (If-Match, X-Expected-Generation). */
export interface Preconditions {
  ifMatch?: number;
  expectedGeneration?: number;
  /** The caller's own live turn (X-Turn-Id): its holder is not "busy" to itself. */
  turnId?: string;
}
