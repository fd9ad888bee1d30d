import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Turn latency and per-message figures (docs/stats.md, "Reply latency"):
 * - `messages.reply_latency_ms`: an assistant reply's time minus the time of the user message it
 *   answers (the nearest earlier active, addressed user message of its session), set when the
 *   reply is written; null for every other row and for rows written before this migration;
 * - `messages.cost_usd`: the `estimatedCostUsd` of the append's usage, on the append's last
 *   assistant reply (the call that produced it); null when the usage named no cost;
 * - `reply_latency_hourly` / `reply_latency_daily`: a histogram of reply latencies per UTC hour
 *   (day), profile, surface, model ('' = none) and logarithmic bucket, with each bucket's count,
 *   smallest and largest latency — the overview's p50/p95 read a few hundred rows at any store
 *   size. They follow a profile rename and go with the profile.
 */
export function replyLatencyMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  const real = dialect === 'sqlite' ? 'real' : 'double precision';

  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('messages').addColumn('reply_latency_ms', bigint).execute();
      await db.schema.alterTable('messages').addColumn('cost_usd', real).execute();
      for (const [table, time] of [
        ['reply_latency_hourly', 'hour_start'],
        ['reply_latency_daily', 'day_start'],
      ] as const) {
        await sql`create table ${sql.raw(table)} (
          ${sql.raw(time)} ${sql.raw(bigint)} not null,
          profile text not null references profiles (name) on delete cascade on update cascade,
          source text not null,
          model text not null,
          bucket integer not null,
          replies ${sql.raw(bigint)} not null,
          min_ms ${sql.raw(bigint)} not null,
          max_ms ${sql.raw(bigint)} not null,
          primary key (${sql.raw(time)}, profile, source, model, bucket))`.execute(db);
        // A profile rename (on update cascade) and a profile's removal find its rows by profile.
        await sql`create index ${sql.raw(`${table}_profile_idx`)} on ${sql.raw(table)} (profile)`.execute(db);
      }
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('reply_latency_daily').ifExists().execute();
      await db.schema.dropTable('reply_latency_hourly').ifExists().execute();
      await db.schema.alterTable('messages').dropColumn('cost_usd').execute();
      await db.schema.alterTable('messages').dropColumn('reply_latency_ms').execute();
    },
  };
}
