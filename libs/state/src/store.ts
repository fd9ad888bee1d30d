import { sql } from 'kysely';
import { AuthService } from './auth/auth.service.js';
import { type ConnectOptions, connect, DEFAULT_DATABASE_URL } from './db/connect.js';
import type { Db, Dialect } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
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
import { LineageService } from './lineage/lineage.service.js';
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
import { type IdGenerator, UlidGenerator } from './shared/ids.js';
import { consoleLogger, type Logger } from './shared/logger.js';
import { DEFAULT_RUNTIME_WINDOWS, type RuntimeWindows } from './shared/runtime.js';
import { sqlDialect } from './shared/sql-dialect.js';
import { UnitOfWork } from './shared/unit-of-work.js';
import { StatsService } from './stats/stats.service.js';
import { TurnService } from './turns/turn.service.js';

export interface StoreOptions extends ConnectOptions {
  url?: string;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  /** Run migrations on open (default true: start-up and every test database do). */
  migrate?: boolean;
  /** How long a deletion observer may run before it is logged and abandoned. */
  observerTimeoutMs?: number;
  /** Liveness windows of the gateway runtime contract (docs/domain.md §10); defaults otherwise. */
  runtime?: Partial<RuntimeWindows>;
}

/** The state layer's facade: one object per process, handed to the API, the CLI and tests. */
export interface StateStore {
  readonly dialect: Dialect;
  readonly location: string;
  /** True when this process created the embedded database (first run). */
  readonly created: boolean;
  readonly db: Db;
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
  close(): Promise<void>;
}

export async function openStore(options: StoreOptions = {}): Promise<StateStore> {
  const url = options.url ?? process.env.STATEHOUSE_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? new UlidGenerator(clock);
  const logger = options.logger ?? consoleLogger;
  const connection = await connect(url, options);
  try {
    if (options.migrate !== false) await migrateToLatest(connection.db, connection.dialect);
  } catch (error) {
    await connection.close();
    throw error;
  }
  const { db, dialect } = connection;
  const uow = new UnitOfWork(db, dialect, clock, logger);
  const sqlDialectPort = sqlDialect(dialect);
  const messages = new MessageService(db, uow, clock, sqlDialectPort);
  const hooks = new HookRegistry(logger, options.observerTimeoutMs);
  const receipts = new ReceiptService(db, uow, clock, dialect);
  const deletionEngine = new DeletionEngine(dialect, clock, ids, hooks, () => receipts.notifyCommitted());
  const deletion = new DeletionService(db, uow, clock, deletionEngine, sqlDialectPort);
  const lineage = new LineageService(db, uow, clock, ids, sqlDialectPort);
  const auth = new AuthService(db, uow, clock, ids, sqlDialectPort);
  const searchIndex = new SearchIndexService(
    db,
    uow,
    clock,
    dialect === 'sqlite' ? new SqliteSearchIndex() : new PostgresSearchIndex(),
    logger,
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
    new HermesImporter(db, uow, clock, sqlDialectPort, deletionEngine),
    logger,
  );
  // Obligations are marked abandoned (never dropped) when their session is deleted, and follow a move.
  const deliveries = new DeliveryService(db, uow, clock, ids, sqlDialectPort);
  deletionEngine.addParticipant(deliveries);
  const runtime: RuntimeWindows = { ...DEFAULT_RUNTIME_WINDOWS, ...options.runtime };
  const handoff = new HandoffService(uow, clock, sqlDialectPort, runtime.handoffTimeoutMs);
  const gateways = new GatewayService(db, uow, clock, sqlDialectPort, runtime, handoff, logger);
  return {
    dialect,
    location: connection.location,
    created: connection.created,
    db,
    clock,
    messages,
    sessions: new SessionService(db, uow, clock, ids, sqlDialectPort, messages, hooks),
    lineage,
    routes,
    handoff,
    gateways,
    deliveries,
    runtime,
    profileAdmin: new ProfileAdminService(uow, clock, deletionEngine, sqlDialectPort, () => auth.forgetPrincipals()),
    turns: new TurnService(uow, clock, ids, sqlDialectPort),
    search: new SearchService(db, dialect === 'sqlite' ? new SqliteSearch() : new PostgresSearch(), logger),
    searchIndex,
    profiles: new ProfileService(db, uow, clock),
    auth,
    idempotency: new IdempotencyService(db, clock),
    hooks,
    deletionEngine,
    deletion,
    receipts,
    retention: new RetentionService(db, uow, clock, deletion, logger),
    stats: new StatsService(db, clock, sqlDialectPort),
    imports,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await imports.close();
      await hooks.idle();
      await searchIndex.idle();
      await connection.close();
    },
  };
}
