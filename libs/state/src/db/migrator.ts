import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import { StoreUnavailableError } from '../shared/errors.js';
import type { DB, Dialect } from './database.js';
import { initialMigration } from './migrations/2026-11-29T12.00-initial.js';
import { turnsAndGenerationsMigration } from './migrations/2026-11-29T15.00-turns-and-generations.js';
import { deletionReceiptsMigration } from './migrations/2026-11-29T18.00-deletion-receipts.js';
import { routesMigration } from './migrations/2026-11-29T21.00-routes-and-handoff.js';
import { searchTriggerWhenMigration } from './migrations/2026-11-29T23.00-search-trigger-when.js';
import { loginThrottleMigration } from './migrations/2026-11-30T01.00-login-throttle.js';
import { receiptConsumerOwnersMigration } from './migrations/2026-11-30T01.10-receipt-consumer-owners.js';
import { gatewaysAndDeliveriesMigration } from './migrations/2026-11-30T02.00-gateways-and-deliveries.js';
import { importsMigration } from './migrations/2026-11-30T03.00-imports.js';
import { usageRollupsMigration } from './migrations/2026-11-30T04.00-usage-rollups.js';
import { sessionListIndexesMigration } from './migrations/2026-11-30T04.10-session-list-indexes.js';
import { accountAdminMigration } from './migrations/2026-11-30T04.20-account-admin.js';
import { jobsAndBackupsMigration } from './migrations/2026-11-30T05.00-jobs-and-backups.js';
import { ftsMergeOffRequestPathMigration } from './migrations/2026-11-30T06.30-fts-merge-off-request-path.js';
import { hiddenSessionsMigration } from './migrations/2026-12-01T03.00-hidden-sessions.js';
import { usageDailyStripesMigration } from './migrations/2026-12-01T03.10-usage-daily-stripes.js';
import { searchIndexAtCommitMigration } from './migrations/2026-12-01T06.00-search-index-at-commit.js';
import { ftsShadowStatsMigration } from './migrations/2026-12-01T12.00-fts-shadow-stats.js';
import { importedRowsMigration } from './migrations/2026-12-06T10.00-imported-rows.js';
import { sessionSchedulesMigration } from './migrations/2026-12-06T14.00-session-schedules.js';
import { clientFieldsAndMetaMigration } from './migrations/2026-12-06T15.00-client-fields-and-meta.js';
import { runtimeStateAndDelegationsMigration } from './migrations/2026-12-06T15.20-runtime-state-and-delegations.js';
import { storeEpochMigration } from './migrations/2026-12-06T17.40-store-epoch.js';
import { labelsMigration } from './migrations/2026-12-06T17.50-labels.js';
import { replyLatencyMigration } from './migrations/2026-12-06T21.00-reply-latency.js';
import { answerableMessagesIndexMigration } from './migrations/2026-12-07T02.00-answerable-messages-index.js';

/** Every migration, in order. Names are timestamps; files are frozen once shipped. */
function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '2026-11-29T12.00-initial': initialMigration(dialect),
    '2026-11-29T15.00-turns-and-generations': turnsAndGenerationsMigration(dialect),
    '2026-11-29T18.00-deletion-receipts': deletionReceiptsMigration(dialect),
    '2026-11-29T21.00-routes-and-handoff': routesMigration(dialect),
    '2026-11-29T23.00-search-trigger-when': searchTriggerWhenMigration(dialect),
    '2026-11-30T01.00-login-throttle': loginThrottleMigration(dialect),
    '2026-11-30T01.10-receipt-consumer-owners': receiptConsumerOwnersMigration(dialect),
    '2026-11-30T02.00-gateways-and-deliveries': gatewaysAndDeliveriesMigration(dialect),
    '2026-11-30T03.00-imports': importsMigration(dialect),
    '2026-11-30T04.00-usage-rollups': usageRollupsMigration(dialect),
    '2026-11-30T04.10-session-list-indexes': sessionListIndexesMigration(dialect),
    '2026-11-30T04.20-account-admin': accountAdminMigration(dialect),
    '2026-11-30T05.00-jobs-and-backups': jobsAndBackupsMigration(dialect),
    '2026-11-30T06.30-fts-merge-off-request-path': ftsMergeOffRequestPathMigration(dialect),
    '2026-12-01T03.00-hidden-sessions': hiddenSessionsMigration(dialect),
    '2026-12-01T03.10-usage-daily-stripes': usageDailyStripesMigration(dialect),
    '2026-12-01T06.00-search-index-at-commit': searchIndexAtCommitMigration(dialect),
    '2026-12-01T12.00-fts-shadow-stats': ftsShadowStatsMigration(dialect),
    '2026-12-06T10.00-imported-rows': importedRowsMigration(dialect),
    '2026-12-06T14.00-session-schedules': sessionSchedulesMigration(dialect),
    '2026-12-06T15.20-runtime-state-and-delegations': runtimeStateAndDelegationsMigration(dialect),
    '2026-12-06T17.40-store-epoch': storeEpochMigration(dialect),
    '2026-12-06T15.00-client-fields-and-meta': clientFieldsAndMetaMigration(dialect),
    '2026-12-06T17.50-labels': labelsMigration(dialect),
    '2026-12-06T21.00-reply-latency': replyLatencyMigration(dialect),
    '2026-12-07T02.00-answerable-messages-index': answerableMessagesIndexMigration(),
  };
}

/** The migrations of a dialect, for a Migrator (tests migrate down and up again). */
export function migrationProvider(dialect: Dialect): MigrationProvider {
  return new StaticProvider(dialect);
}

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations() {
    return migrations(this.dialect);
  }
}

export async function migrateToLatest(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticProvider(dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new StoreUnavailableError(
      `database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`,
      { cause: error },
    );
  }
}

export async function migrateDown(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticProvider(dialect) });
  for (;;) {
    const { error, results } = await migrator.migrateDown();
    if (error) throw error;
    if (!results || results.length === 0) return;
  }
}
