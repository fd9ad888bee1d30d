/**
 * The cursor-paginated lists that pagination.test.ts walks with `paginate()`. generated.test.ts
 * fails when the document gains one that is not here (and so not tested).
 */
export const PAGINATED_LISTS = [
  '/v1/delegations',
  '/v1/deletion-receipts',
  '/v1/deliveries',
  '/v1/gateways',
  '/v1/imports',
  '/v1/profiles/{name}/meta',
  '/v1/routes',
  '/v1/schedules',
  '/v1/schedules/due',
  '/v1/search',
  '/v1/sessions',
  '/v1/sessions/{id}/messages',
  '/v1/sessions/{sessionId}/schedules',
] as const;
