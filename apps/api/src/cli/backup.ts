import { DomainError, dialectOf, openStore, PG_BACKUP_RECIPE, silentLogger } from '@statehouse/state';
import { PROCESS_HOLDER } from '../common/process-holder.js';
import { loadCliConfig, parseCliArgs } from './args.js';

/**
 * `npm run backup -- --to PATH`: an online copy of the configured store while the API keeps
 * running (SQLite: the backup API, a consistent snapshot, checked and counted in the copy).
 * PostgreSQL: prints the pg_dump recipe, or runs it with `--pg-dump`. The outcome is recorded in
 * the store (GET /v1/ops/backup).
 */
const usage = 'usage: npm run backup -- --to PATH [--pg-dump]';
const { values } = parseCliArgs(
  { options: { to: { type: 'string' }, 'pg-dump': { type: 'boolean', default: false } } },
  usage,
  'backup',
);

const config = loadCliConfig('backup');
if (dialectOf(config.databaseUrl) === 'postgres' && !values['pg-dump']) {
  console.log(PG_BACKUP_RECIPE);
  process.exit(values.to ? 2 : 0);
}
if (!values.to) {
  console.error(usage);
  process.exit(2);
}
const store = await openStore({
  url: config.databaseUrl,
  logger: silentLogger,
  preparedStatements: config.pgPreparedStatements,
});
try {
  const record = await store.backups.backupTo(values.to, {
    trigger: 'cli',
    holder: PROCESS_HOLDER,
    pgDump: values['pg-dump'],
  });
  const counts = record.counts;
  console.log(
    `backup written to ${record.path}: ${record.bytes} bytes` +
      (counts ? `, ${counts.sessions} sessions, ${counts.messages} messages, ${counts.receipts} receipts` : ''),
  );
} catch (error) {
  console.error(`backup failed: ${error instanceof DomainError ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await store.close();
}
