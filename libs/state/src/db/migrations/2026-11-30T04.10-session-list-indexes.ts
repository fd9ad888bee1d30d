import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

const INDEXES = {
  sessions_source_recent_idx: 'sessions (source, last_activity_at desc, id desc)',
  sessions_model_recent_idx: 'sessions (model, last_activity_at desc, id desc) where model is not null',
  sessions_user_recent_idx: 'sessions (user_id, last_activity_at desc, id desc) where user_id is not null',
  sessions_lease_idx: 'sessions (lease_expires_at) where lease_expires_at is not null',
};

/**
 * Frozen. Keyset indexes for the sessions list filtered by surface, model or user (first page and
 * bounded total without walking the whole table), and the live leases "busy now" counts.
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
