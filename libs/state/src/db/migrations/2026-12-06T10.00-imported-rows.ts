import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. `sessions.imported_at`: when an import last wrote the row (null for rows created here).
 * An imported open row whose activity is no later than that has not been claimed by a Statehouse
 * writer yet: its liveness is the old store's, and the liveness sweep leaves it alone
 * (docs/domain.md §10.3). No index: the sweep reads it as a residual check on open rows.
 */
export function importedRowsMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('sessions').addColumn('imported_at', bigint).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('sessions').dropColumn('imported_at').execute();
    },
  };
}
