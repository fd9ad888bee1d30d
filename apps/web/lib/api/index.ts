import 'server-only';

export * from './auth';
/**
 * The dashboard's API client, one module per API resource (as the API's controllers are split),
 * over one request core (`client.ts`: cookie forwarding, timeouts, problem documents, contract
 * validation of every answer). Import endpoints from `@/lib/api`.
 */
export { ApiProblemError, ApiUnreachableError } from './client';
export * from './delegations';
export * from './feeds';
export * from './gateways';
export * from './imports';
export * from './labels';
export * from './lineage';
export * from './messages';
export * from './profiles';
export * from './receipts';
export * from './retention';
export * from './routes';
export * from './schedules';
export * from './search';
export * from './sessions';
export * from './stats';
export * from './tokens';
export * from './users';
