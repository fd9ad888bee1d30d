import { sql } from 'kysely';
import type { Executor, SessionRow } from '../db/database.js';
import { chunk } from '../db/sql-dialect.js';

/** What a lineage node shows: a narrow read, the tree may have a thousand nodes. */
export const LINEAGE_NODE_COLUMNS = [
  'id',
  'profile',
  'parent_session_id',
  'lineage_kind',
  'title',
  'source',
  'started_at',
  'ended_at',
  'end_reason',
  'message_count',
  'lease_expires_at',
] as const;
export type LineageNodeRow = Pick<SessionRow, (typeof LINEAGE_NODE_COLUMNS)[number]>;

/** A conversation's root and the token and cost counters summed over its segments. */
export interface ChainUsage {
  rootId: string;
  rootStartedAt: number;
  segments: number;
  messageCount: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  estimatedCostUsd: number;
}

/** A session's counters as a chain walk carries them (per segment, or summed over a chain). */
interface SegmentCounters {
  message_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  estimated_cost_usd: number;
}

interface ChainTotalsRow extends SegmentCounters {
  start_id: string;
  segments: number;
  root_id: string | null;
  root_started_at: number | null;
}

interface ChainUsageRow extends SegmentCounters {
  start_id: string;
  id: string;
  started_at: number;
  depth: number;
}

/**
 * Walks are bounded and cycle-guarded by depth (docs/domain.md §3). Walks down leave hidden
 * sessions out (a continuation still being imported in chunks, migration 2026-12-01T03.00); walks
 * up never meet one (an import writes parents before children, and nothing else can refer to one).
 */
export const MAX_WALK = 1000;

/**
 * `up`: the bounded walk from each id up its compression edges (a segment's counters ride along, so
 * no second lookup per segment); the row where it stops — its edge up is not a compression, or it
 * has none — is the root.
 */
const usageWalk = (ids: readonly string[]) => sql`
  with recursive up(start_id, id, parent_id, kind, started_at, depth, message_count, input_tokens, output_tokens,
    cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd) as (
    select id, id, parent_session_id, lineage_kind, started_at, 0, message_count, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd
    from sessions where id in (${sql.join(ids)})
    union all
    select up.start_id, s.id, s.parent_session_id, s.lineage_kind, s.started_at, up.depth + 1, s.message_count,
      s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens,
      s.estimated_cost_usd
    from up join sessions s on s.id = up.parent_id
    where up.kind = 'compression' and up.depth < ${MAX_WALK}
  )`;

/**
 * The compression child a walk forward follows from `down.id`: prefer a child that itself ended by
 * compression, then an open child, then the freshest (docs/domain.md §3).
 */
const PREFERRED_CHILD_OF_DOWN = sql`(select c.id from sessions c
  where c.parent_session_id = down.id and c.lineage_kind = 'compression' and c.hidden_for is null
  order by case when c.end_reason = 'compression' then 1 else 0 end desc,
           case when c.ended_at is null then 1 else 0 end desc,
           c.last_activity_at desc, c.id desc
  limit 1)`;

export class LineageRepository {
  /**
   * The compression-chain root of each id: follow `compression` parents up. A branch, reset or
   * delegate edge starts a lineage of its own, so the walk stops there.
   */
  async chainRootsOf(db: Executor, ids: readonly string[]): Promise<Map<string, { id: string; startedAt: number }>> {
    const roots = new Map<string, { id: string; startedAt: number; depth: number }>();
    for (const part of chunk([...new Set(ids)])) {
      const { rows } = await sql<{ start_id: string; id: string; started_at: number; depth: number }>`
        with recursive up(start_id, id, parent_id, kind, started_at, depth) as (
          select id, id, parent_session_id, lineage_kind, started_at, 0 from sessions
          where id in (${sql.join(part)})
          union all
          select up.start_id, s.id, s.parent_session_id, s.lineage_kind, s.started_at, up.depth + 1
          from up join sessions s on s.id = up.parent_id
          where up.kind = 'compression' and up.depth < ${MAX_WALK}
        )
        select start_id, id, started_at, depth from up`.execute(db);
      for (const row of rows) {
        const depth = Number(row.depth);
        const current = roots.get(row.start_id);
        if (!current || depth > current.depth) {
          roots.set(row.start_id, { id: row.id, startedAt: Number(row.started_at), depth });
        }
      }
    }
    return new Map([...roots].map(([id, root]) => [id, { id: root.id, startedAt: root.startedAt }]));
  }

  /**
   * For each id, its compression-chain root and the message, token and cost counters of every segment from
   * the root to it (a listed tip: the whole conversation). Same bounded walk as `chainRootsOf`, summed in
   * the database: one row per id comes back, not one per segment (a first page of 50 tips 20 deep read
   * 1,050 rows into JavaScript, 3.3 ms of the page's 9; summed, 1.4 ms —
   * docs/decisions/0023-session-list-plans.md). A walk that found no root (a parent row missing, or a cycle cut by the depth bound) is walked
   * again row by row, where a segment met twice is counted once.
   */
  async chainUsageOf(db: Executor, ids: readonly string[]): Promise<Map<string, ChainUsage>> {
    const result = new Map<string, ChainUsage>();
    const unresolved: string[] = [];
    for (const part of chunk([...new Set(ids)])) {
      const { rows } = await sql<ChainTotalsRow>`
        ${usageWalk(part)}
        select start_id, count(*) as segments,
          max(case when kind is null or kind <> 'compression' or parent_id is null then id end) as root_id,
          max(case when kind is null or kind <> 'compression' or parent_id is null then started_at end)
            as root_started_at,
          sum(message_count) as message_count, sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens,
          sum(cache_read_tokens) as cache_read_tokens, sum(cache_write_tokens) as cache_write_tokens,
          sum(reasoning_tokens) as reasoning_tokens, sum(estimated_cost_usd) as estimated_cost_usd
        from up group by start_id`.execute(db);
      for (const row of rows) {
        if (row.root_id === null || row.root_started_at === null) {
          unresolved.push(row.start_id);
          continue;
        }
        result.set(row.start_id, {
          rootId: row.root_id,
          rootStartedAt: Number(row.root_started_at),
          segments: Number(row.segments),
          messageCount: Number(row.message_count),
          inputTokens: Number(row.input_tokens),
          outputTokens: Number(row.output_tokens),
          cacheReadTokens: Number(row.cache_read_tokens),
          cacheWriteTokens: Number(row.cache_write_tokens),
          reasoningTokens: Number(row.reasoning_tokens),
          estimatedCostUsd: Number(row.estimated_cost_usd),
        });
      }
    }
    if (unresolved.length > 0) {
      for (const [id, usage] of await this.chainUsageByRows(db, unresolved)) result.set(id, usage);
    }
    return result;
  }

  /** `chainUsageOf` segment by segment, each segment counted once however often the walk met it. */
  private async chainUsageByRows(db: Executor, ids: readonly string[]): Promise<Map<string, ChainUsage>> {
    const result = new Map<string, ChainUsage & { depth: number }>();
    const seen = new Set<string>();
    for (const part of chunk([...new Set(ids)])) {
      const { rows } = await sql<ChainUsageRow>`
        ${usageWalk(part)}
        select start_id, id, started_at, depth, message_count, input_tokens, output_tokens, cache_read_tokens,
          cache_write_tokens, reasoning_tokens, estimated_cost_usd
        from up`.execute(db);
      for (const row of rows) {
        // A cycle (never written, but walks are guarded anyway) must not count a segment twice.
        if (seen.has(`${row.start_id}\n${row.id}`)) continue;
        seen.add(`${row.start_id}\n${row.id}`);
        const depth = Number(row.depth);
        const current = result.get(row.start_id) ?? {
          rootId: row.id,
          rootStartedAt: Number(row.started_at),
          depth: -1,
          segments: 0,
          messageCount: 0,
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
          estimatedCostUsd: 0,
        };
        if (depth > current.depth) {
          current.rootId = row.id;
          current.rootStartedAt = Number(row.started_at);
          current.depth = depth;
        }
        current.segments++;
        current.messageCount += Number(row.message_count);
        current.inputTokens += Number(row.input_tokens);
        current.outputTokens += Number(row.output_tokens);
        current.cacheReadTokens += Number(row.cache_read_tokens);
        current.cacheWriteTokens += Number(row.cache_write_tokens);
        current.reasoningTokens += Number(row.reasoning_tokens);
        current.estimatedCostUsd += Number(row.estimated_cost_usd);
        result.set(row.start_id, current);
      }
    }
    return new Map([...result].map(([id, { depth: _depth, ...usage }]) => [id, usage]));
  }

  /** Titles of sessions (a search hit names its conversation by its tip's title). */
  async titlesOf(db: Executor, ids: readonly string[]): Promise<Map<string, string | null>> {
    const titles = new Map<string, string | null>();
    for (const part of chunk(ids)) {
      const rows = await db.selectFrom('sessions').select(['id', 'title']).where('id', 'in', part).execute();
      for (const row of rows) titles.set(row.id, row.title);
    }
    return titles;
  }

  /**
   * The tip of each id's compression chain: follow compression children forward, preferring a
   * child that itself ended by compression, then an open child, then the freshest.
   */
  async tipsOf(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
    const tips = new Map<string, { id: string; depth: number }>();
    for (const part of chunk([...new Set(ids)])) {
      const { rows } = await sql<{ start_id: string; id: string; depth: number }>`
        with recursive down(start_id, id, depth) as (
          select id, id, 0 from sessions where id in (${sql.join(part)})
          union all
          select down.start_id,
            ${PREFERRED_CHILD_OF_DOWN},
            down.depth + 1
          from down where down.id is not null and down.depth < ${MAX_WALK}
        )
        select start_id, id, depth from down where id is not null`.execute(db);
      for (const row of rows) {
        const depth = Number(row.depth);
        const current = tips.get(row.start_id);
        if (!current || depth > current.depth) tips.set(row.start_id, { id: row.id, depth });
      }
    }
    return new Map([...tips].map(([id, tip]) => [id, tip.id]));
  }

  /** Every segment of the compression lineage `id` belongs to (root and all compression descendants). */
  async compressionChainMembers(db: Executor, id: string): Promise<string[]> {
    const root = (await this.chainRootsOf(db, [id])).get(id)?.id ?? id;
    const { rows } = await sql<{ id: string }>`
      with recursive down(id, depth) as (
        select id, 0 from sessions where id = ${root}
        union all
        select c.id, down.depth + 1 from down
        join sessions c on c.parent_session_id = down.id and c.lineage_kind = 'compression' and c.hidden_for is null
        where down.depth < ${MAX_WALK}
      )
      select distinct id from down`.execute(db);
    return rows.map((row) => row.id);
  }

  /** Compression ancestors of `id`, root first, ending with `id` itself. */
  async compressionPathTo(db: Executor, id: string): Promise<string[]> {
    const { rows } = await sql<{ id: string; depth: number }>`
      with recursive up(id, parent_id, kind, depth) as (
        select id, parent_session_id, lineage_kind, 0 from sessions where id = ${id}
        union all
        select s.id, s.parent_session_id, s.lineage_kind, up.depth + 1
        from up join sessions s on s.id = up.parent_id
        where up.kind = 'compression' and up.depth < ${MAX_WALK}
      )
      select id, depth from up order by depth desc`.execute(db);
    return dedupe(rows.map((row) => row.id));
  }

  /** From `id` forward along the preferred compression child to the tip, `id` first. */
  async compressionPathFrom(db: Executor, id: string): Promise<string[]> {
    const { rows } = await sql<{ id: string; depth: number }>`
      with recursive down(id, depth) as (
        select ${id}, 0
        union all
        select
          ${PREFERRED_CHILD_OF_DOWN},
          down.depth + 1
        from down where down.id is not null and down.depth < ${MAX_WALK}
      )
      select id, depth from down where id is not null order by depth`.execute(db);
    return dedupe(rows.map((row) => row.id));
  }

  /** The top of the whole tree: follow parents through every edge kind. */
  async treeRootOf(db: Executor, id: string): Promise<string> {
    const { rows } = await sql<{ id: string; depth: number }>`
      with recursive up(id, parent_id, depth) as (
        select id, parent_session_id, 0 from sessions where id = ${id}
        union all
        select s.id, s.parent_session_id, up.depth + 1
        from up join sessions s on s.id = up.parent_id
        where up.depth < ${MAX_WALK}
      )
      select id, depth from up order by depth desc limit 1`.execute(db);
    return rows[0]?.id ?? id;
  }

  /** Every session reachable downwards from `rootId` through any edge kind, at most `limit` rows. */
  async subtree(db: Executor, rootId: string, limit: number): Promise<{ rows: LineageNodeRow[]; truncated: boolean }> {
    const { rows } = await sql<{ id: string }>`
      with recursive down(id, depth) as (
        select id, 0 from sessions where id = ${rootId}
        union all
        select c.id, down.depth + 1 from down
        join sessions c on c.parent_session_id = down.id and c.hidden_for is null
        where down.depth < ${MAX_WALK}
      )
      select id from down limit ${limit * 2 + 1}`.execute(db);
    const ids = dedupe(rows.map((row) => row.id));
    const truncated = ids.length > limit;
    const kept = ids.slice(0, limit);
    const sessions: LineageNodeRow[] = [];
    for (const part of chunk(kept)) {
      sessions.push(
        ...(await db.selectFrom('sessions').select(LINEAGE_NODE_COLUMNS).where('id', 'in', part).execute()),
      );
    }
    return { rows: sessions, truncated };
  }
}

const dedupe = (ids: string[]) => [...new Set(ids)];
