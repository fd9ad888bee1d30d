import { type ExpressionBuilder, sql } from 'kysely';
import type { DB, Executor } from '../db/database.js';
import { PreparedQuery } from '../db/prepared.js';
import { chunk, type SqlDialect } from '../db/sql-dialect.js';

const DAY_MS = 86_400_000;

/** One bucket of a histogram as read back: how many replies, their smallest and largest latency. */
export interface HistogramBucket {
  bucket: number;
  replies: number;
  minMs: number;
  maxMs: number;
}

/** What replies add to one histogram bucket of one hour. */
export interface LatencyContribution {
  hourStart: number;
  profile: string;
  source: string;
  /** '' = no model recorded. */
  model: string;
  bucket: number;
  replies: number;
  minMs: number;
  maxMs: number;
}

/** A group's histogram bucket as read back: surface, model ('' = none) and the bucket. */
export interface LatencyRow extends HistogramBucket {
  source: string;
  model: string;
}

type Param = 'time' | 'profile' | 'source' | 'model' | 'bucket' | 'replies' | 'minMs' | 'maxMs';
type Table = 'reply_latency_hourly' | 'reply_latency_daily';
const TIME = { reply_latency_hourly: 'hour_start', reply_latency_daily: 'day_start' } as const;

/**
 * The reply-latency histograms (docs/stats.md, "Reply latency"): per UTC hour and per UTC day,
 * profile, surface, model and bucket, a count with the smallest and largest latency. Written in
 * the transaction that writes the replies; they follow a profile rename (`moveProfile`) and go with
 * the profile (a foreign key, migration 2026-12-06T21.00).
 */
export class ReplyLatencyRepository {
  private readonly upserts: Record<Table, PreparedQuery<Param, unknown>>;

  constructor(private readonly dialect: SqlDialect) {
    this.upserts = {
      reply_latency_hourly: this.upsert('reply_latency_hourly'),
      reply_latency_daily: this.upsert('reply_latency_daily'),
    };
  }

  private upsert(table: Table) {
    const time = TIME[table];
    return new PreparedQuery<Param, unknown>((db, param) =>
      db
        .insertInto(table)
        .values({
          [time]: param('time'),
          profile: param('profile'),
          source: param('source'),
          model: param('model'),
          bucket: param('bucket'),
          replies: param('replies'),
          min_ms: param('minMs'),
          max_ms: param('maxMs'),
        } as never)
        .onConflict((oc) =>
          oc.columns([time, 'profile', 'source', 'model', 'bucket'] as never).doUpdateSet({
            replies: sql`${sql.ref(`${table}.replies`)} + ${sql.ref('excluded.replies')}`,
            min_ms: this.dialect.least(sql.ref(`${table}.min_ms`), sql.ref('excluded.min_ms')),
            max_ms: this.dialect.greatest(sql.ref(`${table}.max_ms`), sql.ref('excluded.max_ms')),
          } as never),
        ),
    );
  }

  /** Adds replies to the hour's and the day's histograms (one upsert each per bucket). */
  async record(db: Executor, contributions: readonly LatencyContribution[]): Promise<void> {
    const days = new Map<string, LatencyContribution>();
    for (const one of contributions) {
      await this.upserts.reply_latency_hourly.execute(db, { ...one, time: one.hourStart });
      const dayStart = one.hourStart - (one.hourStart % DAY_MS);
      const key = `${dayStart}:${one.bucket}`;
      const current = days.get(key);
      if (current) {
        current.replies += one.replies;
        current.minMs = Math.min(current.minMs, one.minMs);
        current.maxMs = Math.max(current.maxMs, one.maxMs);
      } else {
        days.set(key, { ...one, hourStart: dayStart });
      }
    }
    for (const one of days.values()) {
      await this.upserts.reply_latency_daily.execute(db, { ...one, time: one.hourStart });
    }
  }

  /** A profile rename: the histograms follow (the new name is new, so no key collides). */
  async moveProfile(db: Executor, from: string, to: string): Promise<void> {
    await db.updateTable('reply_latency_hourly').set({ profile: to }).where('profile', '=', from).execute();
    await db.updateTable('reply_latency_daily').set({ profile: to }).where('profile', '=', from).execute();
  }

  /**
   * Every (surface, model, bucket) of `[from, to)` (whole UTC hours): whole UTC days from the daily
   * histogram, the hours at either end from the hourly one.
   */
  async histogram(db: Executor, from: number, to: number, profiles: string[] | null): Promise<LatencyRow[]> {
    if (profiles !== null && profiles.length === 0) return [];
    const firstDay = Math.ceil(from / DAY_MS) * DAY_MS;
    const lastDay = Math.floor(to / DAY_MS) * DAY_MS;
    const parts: Promise<LatencyRow[]>[] = [];
    if (firstDay < lastDay) {
      parts.push(this.read(db, 'reply_latency_daily', firstDay, lastDay, profiles));
      if (from < firstDay) parts.push(this.read(db, 'reply_latency_hourly', from, firstDay, profiles));
      if (lastDay < to) parts.push(this.read(db, 'reply_latency_hourly', lastDay, to, profiles));
    } else {
      parts.push(this.read(db, 'reply_latency_hourly', from, to, profiles));
    }
    return (await Promise.all(parts)).flat();
  }

  private async read(
    db: Executor,
    table: Table,
    from: number,
    to: number,
    profiles: string[] | null,
  ): Promise<LatencyRow[]> {
    const time = TIME[table];
    const rows: LatencyRow[] = [];
    // A member of many profiles: the list in parts, under either dialect's parameter limit.
    for (const part of profiles === null ? [null] : chunk(profiles, 500)) {
      let query = db
        .selectFrom(table)
        .select((eb: ExpressionBuilder<DB, Table>) => [
          eb.ref('source').as('source'),
          eb.ref('model').as('model'),
          eb.ref('bucket').as('bucket'),
          eb.fn.sum<number>('replies').as('replies'),
          eb.fn.min<number>('min_ms').as('minMs'),
          eb.fn.max<number>('max_ms').as('maxMs'),
        ])
        .where(sql<boolean>`${sql.ref(time)} >= ${from} and ${sql.ref(time)} < ${to}`);
      if (part !== null) query = query.where('profile', 'in', part);
      const found = await query.groupBy(['source', 'model', 'bucket']).execute();
      for (const row of found) {
        rows.push({
          source: String(row.source),
          model: String(row.model),
          bucket: Number(row.bucket),
          replies: Number(row.replies),
          minMs: Number(row.minMs),
          maxMs: Number(row.maxMs),
        });
      }
    }
    return rows;
  }
}
