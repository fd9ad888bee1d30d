export { CHUNK_BUDGET_MS, CHUNK_STOP_MS, type ChunkEvent, observeChunks } from './db/chunks.js';
export { DEFAULT_DATABASE_URL, DEFAULT_READ_DEADLINE_MS, dialectOf } from './db/connect.js';
export type { DB, Dialect } from './db/database.js';
export type { CheckpointerStatus } from './db/sqlite-checkpointer.js';
export { flushSearchPending } from './db/sqlite-search-pending.js';
export type { Wakeups, WakeupTopic } from './db/wakeup.port.js';
export { clientAddressKey } from './domain/client-address.js';
export type { DeletionParticipant } from './domain/deletion-participant.js';
export {
  HookRegistry,
  OBSERVER_TIMEOUT_MS,
  type SessionDeletedEvent,
  type SessionDeletedObserver,
  type SessionMovedEvent,
  type SessionMovedObserver,
  type SessionReopenedEvent,
  type SessionReopenedObserver,
} from './domain/hook-registry.js';
export { ImportInputError } from './domain/import-errors.js';
export { LOGIN_THROTTLE } from './domain/login-throttle.js';
export { hashPassword, needsRehash, SCRYPT_PARAMETERS, type ScryptParameters } from './domain/password.js';
export {
  type HermesImportResult,
  ImportAbortedError,
} from './importers/hermes/hermes-importer.js';
export { assertSqliteHeader } from './importers/hermes/hermes-snapshot.js';
export { IMPORT_LEASE_MS } from './importers/import.service.js';
export { type RestoreReport, renewStoreEpoch, restoreSqliteStore } from './restore/restore.js';
export { seedDemoData } from './seed/demo-seed.js';
export { DASHBOARD_SESSION_TTL_MS, type LoginResult } from './services/auth.service.js';
export {
  BACKUP_JOB,
  type BackupOptions,
  type BackupSchedule,
  PG_BACKUP_RECIPE,
} from './services/backup.service.js';
export { DEFERRED_WORK_JOB } from './services/deferred-work.service.js';
export { GHOST_AGE_MS, MAINTENANCE_BATCH } from './services/deletion.service.js';
export { LIVENESS_SWEEP_JOB, ORPHAN_REAP_REASON } from './services/gateway.service.js';
export {
  IDEMPOTENCY_PURGE_JOB,
  IDEMPOTENCY_RETENTION_MS,
  type IdempotencyLookup,
} from './services/idempotency.service.js';
export { INDEX_MAINTENANCE_JOB } from './services/index-maintenance.service.js';
export {
  DEFAULT_JOB_LEASE_MS,
  type JobContext,
  type JobDefinition,
  type JobOutcome,
  type JobPassReport,
} from './services/job.service.js';
export { BRANCH_IN_CHUNKS_ABOVE, COMPACTION_CHUNK } from './services/lineage.service.js';
export type { FeedOptions, MessageFeedEvent, SessionFeedEvent } from './services/message-feed.service.js';
export { REWIND_IN_CHUNKS_ABOVE } from './services/message-rewind.service.js';
export { CursorExpiredError, type WatchEvent } from './services/receipt.service.js';
export { RETENTION_JOB, type RetentionRunReport } from './services/retention.service.js';
export { routingKey } from './services/route.service.js';
export { canAccessProfile, principalKey, SYSTEM_PRINCIPAL } from './shared/access.js';
export { canonicalJson } from './shared/canonical-json.js';
export { type Clock, ManualClock, systemClock } from './shared/clock.js';
export type { IdempotencyClaim, OperationContext, Preconditions } from './shared/context.js';
export * from './shared/errors.js';
export { type IdGenerator, UlidGenerator } from './shared/ids.js';
export { consoleLogger, type Logger, silentLogger } from './shared/logger.js';
export { receiptHash } from './shared/receipt-hash.js';
export { DEFAULT_RUNTIME_WINDOWS, type RuntimeWindows } from './shared/runtime.js';
export { sanitizeTitle } from './shared/sanitize.js';
export { toDomainError } from './shared/store-errors.js';
export { openStore, type StateStore, type StoreOptions } from './store.js';
