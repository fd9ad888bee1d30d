import { sql } from 'kysely';
import { AuthService } from './auth/auth.service.js';
import type { ScryptParameters } from './auth/password.js';
import { BackupService } from './backups/backup.service.js';
import { type ConnectOptions, connect, DEFAULT_DATABASE_URL } from './db/connect.js';
import type { Db, Dialect } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import type { CheckpointerStatus } from './db/sqlite-checkpointer.js';
import { MainThreadBatchWriter, SqliteWriteWorker } from './db/sqlite-write-worker.js';
import { DeletionEngine } from './deletion/deletion.engine.js';
import { DeletionService } from './deletion/deletion.service.js';
import { DeliveryService } from './deliveries/delivery.service.js';
import { GatewayService } from './gateways/gateway.service.js';
import { HandoffService } from './handoff/handoff.service.js';
import { HookRegistry } from './hooks/hook-registry.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { HermesImporter } from './importers/hermes/hermes-importer.js';
import { ImportService } from './importers/import.service.js';
import { ImportLedgerParticipant } from './importers/import-ledger.participant.js';
import { chunkPause } from './jobs/chunks.js';
import { DeferredWorkService } from './jobs/deferred-work.service.js';
import { JobService } from './jobs/job.service.js';
import { LineageService } from './lineage/lineage.service.js';
import { IndexMaintenanceService } from './maintenance/index-maintenance.service.js';
import { AppendWriter } from './messages/append-writer.js';
import { MessageService } from './messages/message.service.js';
import { ProfileService } from './profiles/profile.service.js';
import { ProfileAdminService } from './profiles/profile-admin.service.js';
import { ReceiptService } from './receipts/receipt.service.js';
import { RetentionService } from './retention/retention.service.js';
import { RouteService } from './routes/route.service.js';
import { PostgresSearch } from './search/postgres-search.js';
import { PostgresSearchIndex } from './search/postgres-search-index.js';
import { SearchService } from './search/search.service.js';
import { SearchIndexService } from './search/search-index.service.js';
import { SqliteSearch } from './search/sqlite-search.js';
import { SqliteSearchIndex } from './search/sqlite-search-index.js';
import { SessionService } from './sessions/session.service.js';
import { type Clock, systemClock } from './shared/clock.js';
import { StoreUnavailableError } from './shared/errors.js';
import { type IdGenerator, UlidGenerator } from './shared/ids.js';
import { consoleLogger, type Logger } from './shared/logger.js';
import { DEFAULT_RUNTIME_WINDOWS, type RuntimeWindows } from './shared/runtime.js';
import { sqlDialect } from './shared/sql-dialect.js';
import { UnitOfWork } from './shared/unit-of-work.js';
import { StatsService } from './stats/stats.service.js';
import { TurnService } from './turns/turn.service.js';
import { LocalWakeups } from './wakeups/local-wakeups.js';
import { PostgresWakeups } from './wakeups/postgres-wakeups.js';
import { SqliteWakeups } from './wakeups/sqlite-wakeups.js';
import type { Wakeups } from './wakeups/wakeup.port.js';

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
   * (the append writer, messages/append-writer.ts); one at a time they run here. `'always'` sends
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
  readonly lineage: LineageService;
  readonly turns: TurnService;
  readonly search: SearchService;
  readonly searchIndex: SearchIndexService;
  readonly profiles: ProfileService;
  readonly profileAdmin: ProfileAdminService;
  readonly routes: RouteService;
  readonly handoff: HandoffService;
  /** Gateway heartbeats, liveness and the orphan sweep (docs/domain.md §10). */
  readonly gateways: GatewayService;
  /** Delivery obligations a gateway owes a chat (docs/domain.md §11). */
  readonly deliveries: DeliveryService;
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
  const messages = new MessageService(db, uow, clock, sqlDialectPort, reads);
  const hooks = new HookRegistry(logger, options.observerTimeoutMs);
  const receipts = new ReceiptService(db, uow, clock, dialect, wakeups);
  const deletionEngine = new DeletionEngine(dialect, clock, ids, hooks, wakeups);
  const deletion = new DeletionService(db, uow, clock, deletionEngine, sqlDialectPort, reads, between);
  // Lineage reads (the bounded walks) go to the read pool; its writes are units of work.
  const lineage = new LineageService(reads, uow, clock, ids, sqlDialectPort);
  const deferred = new DeferredWorkService(db, uow, clock, logger, between);
  deletionEngine.useDeferredWork(deferred, uow);
  lineage.useDeferredWork(deferred, deletionEngine, between);
  messages.useDeferredWork(deferred, between);
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
  const routes = new RouteService(db, uow, clock, sqlDialectPort);
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
  const runtime: RuntimeWindows = { ...DEFAULT_RUNTIME_WINDOWS, ...options.runtime };
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
    sessions: new SessionService(db, uow, clock, ids, sqlDialectPort, messages, hooks, reads),
    lineage,
    routes,
    handoff,
    gateways,
    deliveries,
    runtime,
    profileAdmin: new ProfileAdminService(uow, clock, deletionEngine, sqlDialectPort, reads, between, () =>
      auth.forgetPrincipals(),
    ),
    turns: new TurnService(uow, clock, ids, sqlDialectPort),
    search: new SearchService(
      reads,
      dialect === 'sqlite' ? new SqliteSearch() : new PostgresSearch(),
      logger,
      () => searchIndex.rebuilding(),
      async () => connection.sqlite?.indexPending(),
    ),
    searchIndex,
    profiles: new ProfileService(db, uow, clock),
    auth,
    idempotency,
    hooks,
    deletionEngine,
    deletion,
    receipts,
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
