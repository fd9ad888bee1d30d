import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Labels people tag conversations with (docs/domain.md §15):
 * - `labels`: a profile's labels, a name unique per profile regardless of case (`name_key`, the
 *   name folded in the service so both dialects compare the same string), a colour token and a
 *   revision for `If-Match`; they follow a profile rename and go with the profile.
 * - `session_labels`: which session carries which label, going with either side.
 */
export function labelsMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';

  return {
    async up(db: Kysely<any>) {
      await sql`create table labels (
        id text primary key,
        profile text not null references profiles (name) on delete cascade on update cascade,
        name text not null,
        name_key text not null,
        colour text not null,
        created_at ${sql.raw(bigint)} not null,
        updated_at ${sql.raw(bigint)} not null,
        revision ${sql.raw(bigint)} not null default 1)`.execute(db);
      await sql`create unique index labels_profile_name_key_idx on labels (profile, name_key)`.execute(db);

      await sql`create table session_labels (
        session_id text not null references sessions (id) on delete cascade,
        label_id text not null references labels (id) on delete cascade,
        created_at ${sql.raw(bigint)} not null,
        primary key (session_id, label_id))`.execute(db);
      // The list's label filter and a label's session count start from the label.
      await sql`create index session_labels_label_idx on session_labels (label_id, session_id)`.execute(db);
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('session_labels').ifExists().execute();
      await db.schema.dropTable('labels').ifExists().execute();
    },
  };
}
