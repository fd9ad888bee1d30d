import {
  DomainError,
  dialectOf,
  PG_BACKUP_RECIPE,
  renewStoreEpoch,
  restoreSqliteStore,
  silentLogger,
} from '@statehouse/state';
import { loadCliConfig, parseCliArgs } from './args.js';

/**
 * `npm run restore -- --from PATH`: a backup into the configured store, which must be empty (a new
 * path, or a store without sessions, messages, receipts, tokens or users). Stop every API process
 * on that store first. The restored store is migrated to this version and its receipt chain verified.
 */
const usage = [
  'usage: npm run restore -- --from PATH   (into STATEHOUSE_DATABASE_URL, which must be empty)',
  '       npm run restore -- --new-epoch   (a store restored by other means: receipt consumers resync)',
].join('\n');
const { values } = parseCliArgs(
  { options: { from: { type: 'string' }, 'new-epoch': { type: 'boolean' } } },
  usage,
  'restore',
);

const config = loadCliConfig('restore');
if (values['new-epoch']) {
  try {
    const epoch = await renewStoreEpoch(config.databaseUrl, silentLogger);
    console.log(`new store epoch ${epoch}: receipt consumers holding a cursor of the old one are told to resync`);
  } catch (error) {
    console.error(`cannot renew the store epoch: ${error instanceof DomainError ? error.message : String(error)}`);
    process.exitCode = 1;
  }
  process.exit();
}
if (dialectOf(config.databaseUrl) === 'postgres') {
  console.log(PG_BACKUP_RECIPE);
  process.exit(2);
}
if (!values.from) {
  console.error(usage);
  process.exit(2);
}
try {
  const report = await restoreSqliteStore(values.from, config.databaseUrl, silentLogger);
  console.log(
    `restored ${values.from} into ${report.target}: ${report.counts.sessions} sessions, ${report.counts.messages} messages, ` +
      `${report.counts.receipts} receipts; receipt chain ${report.verify.ok ? `verified (${report.verify.checked})` : `BROKEN at ${report.verify.firstBadSequence}`}; ` +
      `new store epoch ${report.epoch}`,
  );
  if (!report.verify.ok) process.exitCode = 1;
} catch (error) {
  console.error(`restore failed: ${error instanceof DomainError ? error.message : String(error)}`);
  process.exitCode = 1;
}
