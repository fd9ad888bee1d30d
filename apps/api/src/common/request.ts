import type { Principal } from '@statehouse/contracts';
import type { IdempotencyClaim } from '@statehouse/state';
import type { Request } from 'express';

/** What the pipeline attaches to a request: its id, the principal, and an idempotency claim. */
export interface StatehouseRequest extends Request {
  id: string;
  user?: Principal;
  authMethod?: 'bearer' | 'cookie';
  idempotency?: IdempotencyClaim;
}
