export { DASHBOARD_SESSION_TTL_MS, type LoginResult } from './auth/auth.service.js';
export { clientAddressKey } from './auth/client-address.js';
export { LOGIN_THROTTLE } from './auth/login-throttle.js';
export { hashPassword, needsRehash, SCRYPT_PARAMETERS, type ScryptParameters } from './auth/password.js';
export {
  BACKUP_JOB,
  type BackupOptions,
  type BackupSchedule,
  PG_BACKUP_RECIPE,
} from './backups/backup.service.js';
export { type RestoreReport, restoreSqliteStore } from './backups/restore.js';
export { DEFAULT_DATABASE_URL, DEFAULT_READ_DEADLINE_MS, dialectOf } from './db/connect.js';
export type { DB, Dialect } from './db/database.js';
export type { CheckpointerStatus } from './db/sqlite-checkpointer.js';
export { flushSearchPending } from './db/sqlite-search-pending.js';
export { GHOST_AGE_MS, MAINTENANCE_BATCH } from './deletion/deletion.service.js';
export type { DeletionParticipant } from './deletion/deletion-participant.js';
export { LIVENESS_SWEEP_JOB, ORPHAN_REAP_REASON } from './gateways/gateway.service.js';
export {
  HookRegistry,
  OBSERVER_TIMEOUT_MS,
  type SessionDeletedEvent,
  type SessionDeletedObserver,
  type SessionMovedEvent,
  type SessionMovedObserver,
} from './hooks/hook-registry.js';
export {
  IDEMPOTENCY_PURGE_JOB,
  IDEMPOTENCY_RETENTION_MS,
  type IdempotencyLookup,
} from './idempotency/idempotency.service.js';
export {
  type HermesImportResult,
  ImportAbortedError,
} from './importers/hermes/hermes-importer.js';
export { assertSqliteHeader } from './importers/hermes/hermes-snapshot.js';
export { IMPORT_LEASE_MS } from './importers/import.service.js';
export { ImportInputError } from './importers/import-errors.js';
export { CHUNK_BUDGET_MS, CHUNK_STOP_MS, type ChunkEvent, observeChunks } from './jobs/chunks.js';
export { DEFERRED_WORK_JOB } from './jobs/deferred-work.service.js';
export {
  DEFAULT_JOB_LEASE_MS,
  type JobContext,
  type JobDefinition,
  type JobOutcome,
  type JobPassReport,
} from './jobs/job.service.js';
export { BRANCH_IN_CHUNKS_ABOVE, COMPACTION_CHUNK } from './lineage/lineage.service.js';
export { INDEX_MAINTENANCE_JOB } from './maintenance/index-maintenance.service.js';
export { REWIND_IN_CHUNKS_ABOVE } from './messages/message.service.js';
export { CursorExpiredError, type WatchEvent } from './receipts/receipt.service.js';
export { canonicalJson, receiptHash } from './receipts/receipt-hash.js';
export { RETENTION_JOB, type RetentionRunReport } from './retention/retention.service.js';
export { routingKey } from './routes/route.service.js';
export { seedDemoData } from './seed/demo-seed.js';
export { canAccessProfile, principalKey, SYSTEM_PRINCIPAL } from './shared/access.js';
export { type Clock, ManualClock, systemClock } from './shared/clock.js';
export type { IdempotencyClaim, OperationContext, Preconditions } from './shared/context.js';
export * from './shared/errors.js';
export { type IdGenerator, UlidGenerator } from './shared/ids.js';
export { consoleLogger, type Logger, silentLogger } from './shared/logger.js';
export { DEFAULT_RUNTIME_WINDOWS, type RuntimeWindows } from './shared/runtime.js';
export { sanitizeTitle } from './shared/sanitize.js';
export { toDomainError } from './shared/store-errors.js';
export { openStore, type StateStore, type StoreOptions } from './store.js';
export type { Wakeups, WakeupTopic } from './wakeups/wakeup.port.js';
