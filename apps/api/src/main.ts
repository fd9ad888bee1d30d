import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { openStore, type StateStore, seedDemoData } from '@statehouse/state';
import { createApp } from './app.factory.js';
import { loadConfig } from './config.js';
import { stateLogger } from './logger.js';
import { MetricsRegistry } from './metrics/metrics.registry.js';
import { loadPlugins } from './plugins/plugin-loader.js';

const logger = new Logger('Statehouse');
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  console.error(`\nStatehouse cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
const metrics = new MetricsRegistry();

let store: StateStore;
try {
  store = await openStore({
    url: config.databaseUrl,
    runtime: config.runtime,
    logger: stateLogger(),
    onQuery: (operation, durationMs, failed) => metrics.recordStoreOperation(operation, durationMs / 1000, failed),
    onWriteLock: (heldMs, requests) => metrics.recordWriteLock(heldMs, requests),
    readDeadlineMs: config.readDeadlineMs,
    readWorkers: config.readWorkers,
    preparedStatements: config.pgPreparedStatements,
    groupCommit: { maxRequests: config.groupCommitMaxRequests, searchIndexLagMs: config.searchIndexLagMs },
    appendWriter: config.appendWriter,
  });
} catch (error) {
  // Never a half-started server: a store that cannot be opened stops the process with the reason.
  console.error(`\nStatehouse cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
logger.log(`store: ${store.dialect} at ${store.location}`);
// The read pool's threads start beside the rest of start-up, not on the first heavy request.
void store.warmUp();

const admin = await store.auth.ensureInitialAdmin(config.adminPassword);
if (admin) {
  const banner = [
    '',
    '================ Statehouse first run ================',
    `  Dashboard login   user: ${admin.username}`,
    admin.generated
      ? `                    password: ${admin.password}`
      : '                    password: (from STATEHOUSE_ADMIN_PASSWORD)',
    admin.generated
      ? '  Printed once: change it after signing in (dashboard: Your account), or set STATEHOUSE_ADMIN_PASSWORD.'
      : '',
    '  Users and API tokens: dashboard → Users, Tokens (or npm run token).',
    '=====================================================',
    '',
  ];
  console.log(banner.filter((line) => line !== null).join('\n'));
}

if (config.seedDemo && (store.created || config.seedDemoExplicit)) {
  const existing = await store.sessions.list(
    { principal: { kind: 'system', id: 'seed', name: 'seed', role: 'admin', profiles: '*' }, channel: 'system' },
    { status: 'all', archived: 'include', includeChildren: true, includeHidden: true, limit: 1, order: 'recent' },
  );
  if (existing.items.length === 0) {
    const seeded = await seedDemoData(config.databaseUrl);
    logger.log(
      `seeded demo data: ${seeded.sessions} sessions, ${seeded.messages} messages, ${seeded.deletions} deletions over the last two weeks (STATEHOUSE_SEED_DEMO=false to skip)`,
    );
  }
}

if (config.plugins.length > 0) {
  try {
    const loaded = await loadPlugins(config.plugins, store, stateLogger('Plugins'));
    logger.log(`plugins loaded: ${loaded.join(', ')}`);
  } catch (error) {
    console.error(`\nStatehouse cannot start: a plugin failed to load: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

const app = await createApp({ store, config, metrics });

const shutdown = async (signal: string) => {
  logger.log(`${signal}: shutting down`);
  await app.close();
  await store.close();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));

await app.listen(config.port, config.host);
logger.log(`API listening on http://${config.host}:${config.port} (docs: http://${config.host}:${config.port}/docs)`);
