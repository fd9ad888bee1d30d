import {
  type Delegation,
  type DelegationPage,
  DelegationPageSchema,
  type ListDelegationsQuery,
} from '@statehouse/contracts';
import { request, wireQuery } from './client';

/** `/v1/delegations`: async sub-agent work and the wake-ups it owes its origin (docs/domain.md §12). */

export type DelegationListParams = Partial<ListDelegationsQuery>;

export function listDelegations(params: DelegationListParams): Promise<DelegationPage> {
  return request('GET /v1/delegations', DelegationPageSchema, (api) =>
    api.GET('/v1/delegations', { params: { query: wireQuery(params) } }),
  );
}

/** How many of a session's delegations its page shows (newest first). */
export const SESSION_DELEGATIONS_SHOWN = 20;

export interface SessionDelegations {
  /** Work this session started (it is their origin: their outcome wakes it). */
  started: Delegation[];
  /** More exist than `started` shows. */
  more: boolean;
  /** Work this session does for another (it is their child). */
  runsFor: Delegation[];
}

export async function getSessionDelegations(sessionId: string): Promise<SessionDelegations> {
  const [started, runsFor] = await Promise.all([
    listDelegations({ originSessionId: sessionId, limit: SESSION_DELEGATIONS_SHOWN }),
    listDelegations({ childSessionId: sessionId, limit: 5 }),
  ]);
  return { started: started.items, more: started.nextCursor !== null, runsFor: runsFor.items };
}
