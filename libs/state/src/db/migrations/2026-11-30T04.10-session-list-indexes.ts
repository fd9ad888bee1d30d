import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

const INDEXES = {
  sessions_user_started_idx: 'sessions (user_id, started_at desc, id desc) where user_id is not null',
  sessions_lease_idx: 'sessions (lease_expires_at) where lease_expires_at is not null',
};

/**
 * Frozen. The sessions list filtered by user (a selective filter: its few rows are found by index
 * and sorted) and the live leases "busy now" counts. Neither index holds a column an append
 * changes, so the append path does not maintain them. Surface and model filters have few values
 * and walk the activity index (docs/architecture.md).
 */
export function sessionListIndexesMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      for (const [name, definition] of Object.entries(INDEXES)) {
        await sql.raw(`create index ${name} on ${definition}`).execute(db);
      }
    },
    async down(db: Kysely<any>) {
      for (const name of Object.keys(INDEXES)) await sql.raw(`drop index if exists ${name}`).execute(db);
    },
  };
}
