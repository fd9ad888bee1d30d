import { sql } from 'kysely';
import { chunkPause } from './db/chunks.js';
import { type ConnectOptions, connect, DEFAULT_DATABASE_URL } from './db/connect.js';
import type { Db, Dialect } from './db/database.js';
import { LocalWakeups } from './db/local-wakeups.js';
import { migrateToLatest } from './db/migrator.js';
import { PostgresWakeups } from './db/postgres-wakeups.js';
import { sqlDialect } from './db/sql-dialect.js';
import type { CheckpointerStatus } from './db/sqlite-checkpointer.js';
import { SqliteWakeups } from './db/sqlite-wakeups.js';
import { MainThreadBatchWriter, SqliteWriteWorker } from './db/sqlite-write-worker.js';
import { UnitOfWork } from './db/unit-of-work.js';
import type { Wakeups } from './db/wakeup.port.js';
import { HookRegistry } from './domain/hook-registry.js';
import type { ScryptParameters } from './domain/password.js';
import { renewEpochIfRestored } from './domain/store-epoch.js';
import { HermesImporter } from './importers/hermes/hermes-importer.js';
import { ImportService } from './importers/import.service.js';
import { ImportLedgerParticipant } from './importers/import-ledger.participant.js';
import { PostgresSearch } from './search/postgres-search.js';
import { PostgresSearchIndex } from './search/postgres-search-index.js';
import { SqliteSearch } from './search/sqlite-search.js';
import { SqliteSearchIndex } from './search/sqlite-search-index.js';
import { AppendWriter } from './services/append-writer.js';
import { AuthService } from './services/auth.service.js';
import { BackupService } from './services/backup.service.js';
import { DeferredWorkService } from './services/deferred-work.service.js';
import { DelegationService } from './services/delegation.service.js';
import { DeletionEngine } from './services/deletion.engine.js';
import { DeletionService } from './services/deletion.service.js';
import { DeliveryService } from './services/delivery.service.js';
import { GatewayService } from './services/gateway.service.js';
import { HandoffService } from './services/handoff.service.js';
import { IdempotencyService } from './services/idempotency.service.js';
import { IndexMaintenanceService } from './services/index-maintenance.service.js';
import { JobService } from './services/job.service.js';
import { LabelService } from './services/label.service.js';
import { LineageService } from './services/lineage.service.js';
import { MessageService } from './services/message.service.js';
import { MessageFeedService } from './services/message-feed.service.js';
import { MessageRewindService } from './services/message-rewind.service.js';
import { ProfileService } from './services/profile.service.js';
import { ProfileAdminService } from './services/profile-admin.service.js';
import { ProfileMetaService } from './services/profile-meta.service.js';
import { ReceiptService } from './services/receipt.service.js';
import { RetentionService } from './services/retention.service.js';
import { RouteService } from './services/route.service.js';
import { ScheduleService } from './services/schedule.service.js';
import { SearchService } from './services/search.service.js';
import { SearchIndexService } from './services/search-index.service.js';
import { SessionService } from './services/session.service.js';
import { SessionLabelsParticipant } from './services/session-labels.participant.js';
import { StatsService } from './services/stats.service.js';
import { TestHooksService } from './services/test-hooks.service.js';
import { TurnService } from './services/turn.service.js';
import { type Clock, systemClock } from './shared/clock.js';
import { StoreUnavailableError } from './shared/errors.js';
import { type IdGenerator, UlidGenerator } from './shared/ids.js';
import { consoleLogger, type Logger } from './shared/logger.js';
import { DEFAULT_RUNTIME_WINDOWS, type RuntimeWindows } from './shared/runtime.js';

export interface StoreOptions extends ConnectOptions {
  url?: string;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  /** Run migrations on open (default true: start-up and every test database do). */
  migrate?: boolean;
  /** How long a deletion observer may run before it is logged and abandoned. */
  observerTimeoutMs?: number;
  /**
   * scrypt parameters of new password hashes (default SCRYPT_PARAMETERS, N = 2^17). Only test
   * stores lower them, so suites that create many users stay fast; start-up never does.
   */
  passwordHashing?: ScryptParameters;
  /** Liveness windows of the gateway runtime contract (docs/domain.md §10); defaults otherwise. */
  runtime?: Partial<RuntimeWindows>;
  /**
   * SQLite file: appends that overlap run on a thread of their own with a second write connection
   * (the append writer, services/append-writer.ts); one at a time they run here. `'always'` sends
   * every append there (tests of that path). Default false; the API turns it on.
   */
  appendWriter?: boolean | 'always';
}

/** The state layer's facade: one object per process, handed to the API, the CLI and tests. */
export interface StateStore {
  readonly dialect: Dialect;
  readonly location: string;
  /** True when this process created the embedded database (first run). */
  readonly created: boolean;
  readonly db: Db;
  /** Where heavy reads run (SQLite: the worker read pool, with a deadline; PostgreSQL: `db`). */
  readonly reads: Db;
  readonly clock: Clock;
  readonly sessions: SessionService;
  readonly messages: MessageService;
  /** Live feeds of appends (a session's messages, a profile's sessions) for server-sent events. */
  readonly feeds: MessageFeedService;
  /** Rewinds of a transcript (in chunks when huge). */
  readonly rewinds: MessageRewindService;
  readonly lineage: LineageService;
  readonly turns: TurnService;
  readonly search: SearchService;
  readonly searchIndex: SearchIndexService;
  readonly profiles: ProfileService;
  /** Each profile's key/value store (docs/domain.md §14). */
  readonly profileMeta: ProfileMetaService;
  /** Labels people tag conversations with (docs/domain.md §15). */
  readonly labels: LabelService;
  /** Rule-free writes for tests; the API exposes them only with STATEHOUSE_TEST_HOOKS=1. */
  readonly testHooks: TestHooksService;
  readonly profileAdmin: ProfileAdminService;
  readonly routes: RouteService;
  readonly handoff: HandoffService;
  /** Gateway heartbeats, liveness and the orphan sweep (docs/domain.md §10). */
  readonly gateways: GatewayService;
  /** Delivery obligations a gateway owes a chat (docs/domain.md §11). */
  readonly deliveries: DeliveryService;
  /** Async sub-agent work and the wake-ups it owes its origin sessions (docs/domain.md §12). */
  readonly delegations: DelegationService;
  /** Per-session scheduled wake-ups: heartbeats and loops (docs/domain.md §13). */
  readonly schedules: ScheduleService;
  readonly runtime: RuntimeWindows;
  readonly auth: AuthService;
  readonly idempotency: IdempotencyService;
  readonly deletion: DeletionService;
  readonly receipts: ReceiptService;
  readonly retention: RetentionService;
  /** The scheduler of every periodic job: each (job, interval) runs once across processes. */
  readonly jobs: JobService;
  /** Long operations continuing in chunks after the transaction that started them. */
  readonly deferred: DeferredWorkService;
  readonly maintenance: IndexMaintenanceService;
  readonly backups: BackupService;
  /** Cross-process wake-ups (LISTEN/NOTIFY, the SQLite change probe). */
  readonly wakeups: Wakeups;
  /** Usage and deletion figures for the overview (rollups kept in the write transactions). */
  readonly stats: StatsService;
  /** Importing other stores' history (a Hermes Agent state.db): runs, progress, reports. */
  readonly imports: ImportService;
  /** In-process observers (plugins): `hooks.onSessionDeleted(fn)`. */
  readonly hooks: HookRegistry;
  /** Rows other modules keep per session join deletions here (routes, deliveries). */
  readonly deletionEngine: DeletionEngine;
  /** Answers when the store can serve a query (readiness). */
  ping(): Promise<void>;
  /** SQLite: this process's WAL checkpointer — failures counted for /metrics (null on PostgreSQL). */
  checkpoints(): CheckpointerStatus | null;
  /** SQLite file with `appendWriter`: the append writer's thread and counts for /metrics (else null). */
  appendWriter(): AppendWriter | null;
  /** Starts the read pool's threads now rather than on the first heavy read (whose deadline would pay for it). */
  warmUp(): Promise<void>;
  close(): Promise<void>;
}

export async function openStore(options: StoreOptions = {}): Promise<StateStore> {
  const url = options.url ?? process.env.STATEHOUSE_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? new UlidGenerator(clock);
  const logger = options.logger ?? consoleLogger;
  const connection = await connect(url, { ...options, logger });
  try {
    if (options.migrate !== false) await migrateToLatest(connection.db, connection.dialect);
    // A PostgreSQL database restored with pg_restore carries its source's epoch: renewed here.
    if (options.migrate !== false && connection.dialect === 'postgres')
      await renewEpochIfRestored(connection.db, logger);
  } catch (error) {
    await connection.close();
    throw error;
  }
  const { db, reads, dialect } = connection;
  const wakeups: Wakeups =
    dialect === 'postgres'
      ? new PostgresWakeups(connection.postgresUrl!, logger)
      : connection.sqlite?.reader
        ? new SqliteWakeups(connection.sqlite.reader)
        : new LocalWakeups();
  const uow = new UnitOfWork(db, dialect, clock, logger);
  const sqlDialectPort = sqlDialect(dialect);
  // Long chunked writes pause between chunks, and on a file merge index segments meanwhile.
  const between = chunkPause(dialect, connection.sqlite?.mergeIndex);
  const hooks = new HookRegistry(logger, options.observerTimeoutMs);
  const messages = new MessageService(db, uow, clock, sqlDialectPort, reads, hooks);
  const receipts = new ReceiptService(db, uow, clock, dialect, wakeups);
  messages.announceAppendsTo(wakeups);
  const deletionEngine = new DeletionEngine(dialect, clock, ids, hooks, wakeups);
  const deletion = new DeletionService(db, uow, clock, deletionEngine, sqlDialectPort, reads, between);
  // Lineage reads (the bounded walks) go to the read pool; its writes are units of work.
  const lineage = new LineageService(reads, uow, clock, ids, sqlDialectPort);
  const deferred = new DeferredWorkService(db, uow, clock, logger, between);
  deletionEngine.useDeferredWork(deferred, uow);
  lineage.useDeferredWork(deferred, deletionEngine, between);
  const rewinds = new MessageRewindService(db, uow, clock, sqlDialectPort, reads);
  rewinds.useDeferredWork(deferred, between);
  const appendWriter =
    options.appendWriter && connection.sqlite?.reader
      ? new AppendWriter({
          path: connection.sqlite.path,
          lockTimeoutMs: options.lockTimeoutMs ?? 5000,
          groupCommit: options.groupCommit,
          clock: clock === systemClock ? null : clock,
          logger,
          onQuery: options.onQuery,
          onWriteLock: options.onWriteLock,
          always: options.appendWriter === 'always',
          onReopened: (event) => hooks.dispatchSessionReopened(event),
        })
      : null;
  if (appendWriter) {
    try {
      await appendWriter.start();
    } catch (error) {
      await appendWriter.close();
      await connection.close();
      throw new StoreUnavailableError(`the append writer could not open the store: ${(error as Error).message}`, {
        cause: error,
      });
    }
    messages.useAppendWriter(appendWriter);
  }
  const auth = new AuthService(db, uow, clock, ids, sqlDialectPort, options.passwordHashing);
  const searchIndex = new SearchIndexService(
    db,
    uow,
    clock,
    dialect === 'sqlite'
      ? new SqliteSearchIndex(connection.sqlite?.reader ? connection.sqlite.path : null, options.lockTimeoutMs)
      : new PostgresSearchIndex(),
    logger,
    dialect,
  );
  // Routes move with their sessions, in the same transaction: on compress/reset and on delete.
  const routes = new RouteService(db, uow, clock, sqlDialectPort, hooks);
  lineage.addContinuationHook(routes);
  deletionEngine.addParticipant(routes);
  // An imported session's ledger entry becomes a tombstone when it is deleted (no resurrection on re-import).
  deletionEngine.addParticipant(new ImportLedgerParticipant());
  const imports = new ImportService(
    db,
    uow,
    clock,
    ids,
    new HermesImporter(db, uow, clock, sqlDialectPort, deletionEngine, between),
    logger,
  );
  // Obligations are marked abandoned (never dropped) when their session is deleted, and follow a move.
  const deliveries = new DeliveryService(db, uow, clock, ids, sqlDialectPort);
  deletionEngine.addParticipant(deliveries);
  // Delegations settle with their origin or child session in the deleting transaction, and follow a move.
  const delegations = new DelegationService(db, uow, clock, ids, sqlDialectPort);
  deletionEngine.addParticipant(delegations);
  const runtime: RuntimeWindows = { ...DEFAULT_RUNTIME_WINDOWS, ...options.runtime };
  // Schedules move with the conversation (compress/reset, beside the route) and go with a deleted session.
  const schedules = new ScheduleService(db, uow, clock, ids, sqlDialectPort, runtime);
  lineage.addContinuationHook(schedules);
  deletionEngine.addParticipant(schedules);
  // Labels go with a deleted session, stay in their profile on a move, and follow a compression.
  const sessionLabels = new SessionLabelsParticipant(clock);
  lineage.addContinuationHook(sessionLabels);
  deletionEngine.addParticipant(sessionLabels);
  const handoff = new HandoffService(uow, clock, sqlDialectPort, runtime.handoffTimeoutMs);
  const gateways = new GatewayService(db, uow, clock, runtime, handoff, logger);
  const idempotency = new IdempotencyService(db, clock);
  const retention = new RetentionService(db, uow, clock, deletion, logger);
  // A file's maintenance steps run on a worker's connection (db/sqlite-write-worker.ts).
  const workerPath = connection.sqlite?.reader ? connection.sqlite.path : null;
  const maintenance = new IndexMaintenanceService(db, dialect, searchIndex, () =>
    workerPath ? new SqliteWriteWorker(workerPath, options.lockTimeoutMs ?? 5000) : new MainThreadBatchWriter(db),
  );
  const backups = new BackupService(
    db,
    dialect,
    clock,
    ids,
    logger,
    connection.sqlite?.path ?? null,
    connection.postgresUrl ?? null,
  );
  // Every periodic job, registered disabled (interval 0): the host sets the intervals it wants.
  const jobs = new JobService(db, uow, clock, logger, between);
  jobs.register(retention.job(0));
  jobs.register(idempotency.job(0));
  jobs.register(maintenance.job(0));
  jobs.register(deferred.job(0));
  jobs.register(gateways.job(0));
  return {
    dialect,
    location: connection.location,
    created: connection.created,
    db,
    reads,
    clock,
    messages,
    rewinds,
    sessions: new SessionService(db, uow, clock, ids, sqlDialectPort, messages, hooks, reads),
    lineage,
    routes,
    handoff,
    gateways,
    deliveries,
    delegations,
    schedules,
    runtime,
    profileAdmin: new ProfileAdminService(uow, clock, deletionEngine, sqlDialectPort, reads, between, () =>
      auth.forgetPrincipals(),
    ),
    turns: new TurnService(uow, clock, ids, sqlDialectPort, hooks),
    search: new SearchService(
      reads,
      dialect === 'sqlite' ? new SqliteSearch() : new PostgresSearch(),
      logger,
      () => searchIndex.rebuilding(),
      async () => connection.sqlite?.indexPending(),
    ),
    searchIndex,
    profiles: new ProfileService(db, uow, clock),
    profileMeta: new ProfileMetaService(db, uow, clock),
    labels: new LabelService(db, uow, clock, ids, sqlDialectPort),
    testHooks: new TestHooksService(uow),
    auth,
    idempotency,
    hooks,
    deletionEngine,
    deletion,
    receipts,
    feeds: new MessageFeedService(db, messages, wakeups),
    retention,
    jobs,
    deferred,
    maintenance,
    backups,
    wakeups,
    // Usage and deletion figures are heavy reads: the read pool on SQLite (a deadline, off the event loop).
    stats: new StatsService(reads, clock, sqlDialectPort),
    imports,
    checkpoints: () => connection.sqlite?.checkpoints() ?? null,
    appendWriter: () => appendWriter,
    async ping() {
      // SQLite: on the read connection, which never queues behind this process's writes.
      if (connection.sqlite?.reader) connection.sqlite.reader.prepare('select 1').get();
      else await sql`select 1`.execute(db);
    },
    async warmUp() {
      const threads = connection.sqlite?.readPool ? (options.readWorkers ?? 2) : 0;
      await Promise.all(Array.from({ length: threads }, () => sql`select 1`.execute(reads))).catch(() => undefined);
    },
    async close() {
      await imports.close();
      await jobs.stop();
      // A rebuild in progress stops at its next chunk; any process resumes it later.
      await searchIndex.stop();
      await deferred.idle();
      await hooks.idle();
      await wakeups.close();
      // Its appends in flight are answered first; then its connection closes before the store's.
      await appendWriter?.close();
      await connection.close();
    },
  };
}
