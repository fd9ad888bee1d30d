import type { SessionOrder } from '@statehouse/contracts';
import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { DB, Executor, SessionRow, SessionsTable } from '../db/database.js';
import { likeContains } from '../db/sql-dialect.js';

/**
 * What a list order sorts by. The two time orders are columns with their own keyset indexes; the
 * counter orders are expressions without one: an index on a counter would be one more entry to
 * rewrite on every append (the hot path), for a sort a person asks for now and then — those sort
 * the rows the filters match instead (docs/api.md, "Sorting the list").
 */
function sortKey(order: SessionOrder): RawBuilder<number> {
  switch (order) {
    case 'recent':
      return sql<number>`s.last_activity_at`;
    case 'started':
      return sql<number>`s.started_at`;
    case 'messages':
      return sql<number>`s.message_count`;
    case 'tokens':
      return sql<number>`(s.input_tokens + s.output_tokens)`;
    case 'cost':
      return sql<number>`s.estimated_cost_usd`;
    case 'duration':
      return sql<number>`(coalesce(s.ended_at, s.last_activity_at) - s.started_at)`;
    default:
      // Callers inside the store that name no order list by start, as the list always has.
      return sql<number>`s.started_at`;
  }
}

export interface SessionListFilter {
  profiles: string[] | null;
  profile?: string;
  source?: string;
  model?: string;
  userId?: string;
  status: 'open' | 'ended' | 'all';
  archived: 'exclude' | 'only' | 'include';
  includeChildren: boolean;
  includeHidden: boolean;
  handoff?: string;
  q?: string;
  /** Half-open ranges [from, to) in epoch ms. */
  started?: { from?: number; to?: number };
  active?: { from?: number; to?: number };
  order: SessionOrder;
  /** Keyset bound: `after` walks to older rows (the next page), `before` to newer ones (the previous page). */
  after?: { at: number; id: string };
  before?: { at: number; id: string };
  /** The row's own counters: input + output tokens, estimated cost (USD), visible messages. */
  tokens?: { min?: number; max?: number };
  costUsd?: { min?: number; max?: number };
  maxMessages?: number;
  limit: number;
  /** tips (default): a compression chain at its tip; roots: at its root; all: every row. */
  view?: 'tips' | 'roots' | 'all';
  sources?: readonly string[];
  excludeSources?: readonly string[];
  /** The cwd is this directory or one under it (no trailing separator). */
  cwdPrefix?: string;
  minMessages?: number;
  sessionKey?: string;
  chatId?: string;
  chatType?: string;
  threadId?: string;
  keyed?: boolean;
  idPrefix?: string;
  /** Only these ids (a resolved `idContains`). */
  ids?: readonly string[];
  sessionId?: string;
  /** Rows carrying, for every set, one of its labels (a resolved `label` filter: a name's label in each profile). */
  labelIdSets?: readonly (readonly string[])[];
}

/** The FROM of list queries (`sessions as s`), filters still to come. */
type SessionSelectQuery = SelectQueryBuilder<DB & { s: SessionsTable }, 's', object>;

/**
 * The session list's reads: its filters, keyset pages (cursors) and counts, and the id lookups
 * that resolve a partial id. Only visible rows (`hidden_for` null).
 */
export class SessionListRepository {
  /**
   * One row per logical conversation: tips of compression chains (rows without a compression
   * child), delegates only when asked. Keyset over (activity|start, id) on an index, so a page
   * costs the same at any table size. With `before`, rows come newest-last (the caller reverses).
   */
  async listConversationTips(db: Executor, filter: SessionListFilter): Promise<SessionRow[]> {
    if (filter.profiles !== null && filter.profiles.length === 0) return [];
    const direction = filter.before ? 'asc' : 'desc';
    if (filter.profiles !== null && filter.profiles.length > 1 && !filter.profile) {
      // Several profiles (a member's scope): one page per profile, each read in order from the
      // (profile, order, id) index, merged and cut here. As one `profile in (…)` the planner must
      // either sort every matching row or walk the whole-table order index filtering; which one it
      // picks follows the statistics (none, or PRAGMA optimize's sampled ones, took the sort: about
      // 0.5 s at 10⁵ sessions; docs/decisions/0023-session-list-plans.md).
      const pages = filter.profiles.map((profile, i) =>
        db.selectFrom(this.tipsPage(db, { ...filter, profiles: [profile] }).as(`p${i}`)).selectAll(),
      );
      const merged = pages.slice(1).reduce((union, page) => union.unionAll(page), pages[0]);
      return db
        .selectFrom(merged.as('m'))
        .selectAll()
        .orderBy('m.sort_key', direction)
        .orderBy('m.id', direction)
        .limit(filter.limit)
        .execute() as Promise<SessionRow[]>;
    }
    return this.tipsPage(db, filter).execute();
  }

  /** One page of tips in keyset order: the whole list, or one profile's part of a merged one. */
  private tipsPage(db: Executor, filter: SessionListFilter) {
    const key = sortKey(filter.order);
    let query = this.filteredTips(db, filter).selectAll('s').select(key.as('sort_key'));
    if (filter.after) {
      const { at, id } = filter.after;
      query = query.where((eb) => eb.or([eb(key, '<', at), eb.and([eb(key, '=', at), eb('s.id', '<', id)])]));
    }
    if (filter.before) {
      const { at, id } = filter.before;
      query = query.where((eb) => eb.or([eb(key, '>', at), eb.and([eb(key, '=', at), eb('s.id', '>', id)])]));
      return query.orderBy(key, 'asc').orderBy('s.id', 'asc').limit(filter.limit);
    }
    return query.orderBy(key, 'desc').orderBy('s.id', 'desc').limit(filter.limit);
  }

  /** Rows the list's filters match, counted up to `bound` + 1 (the caller shows "bound+" beyond it). */
  async countConversationTips(db: Executor, filter: SessionListFilter, bound: number): Promise<number> {
    if (filter.profiles !== null && filter.profiles.length === 0) return 0;
    const matching = this.filteredTips(db, filter)
      .select(sql<number>`1`.as('one'))
      .limit(bound + 1);
    const row = await db
      .selectFrom(matching.as('m'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private filteredTips(db: Executor, filter: SessionListFilter) {
    let query = db.selectFrom('sessions as s').where('s.hidden_for', 'is', null);
    const view = filter.view ?? 'tips';
    if (view === 'tips') {
      query = query.where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('sessions as c')
              .select('c.id')
              .whereRef('c.parent_session_id', '=', 's.id')
              .where('c.lineage_kind', '=', 'compression')
              // A continuation still being imported does not make its parent stop being the tip.
              .where('c.hidden_for', 'is', null),
          ),
        ),
      );
    } else if (view === 'roots') {
      query = query.where((eb) => eb.or([eb('s.lineage_kind', 'is', null), eb('s.lineage_kind', '<>', 'compression')]));
    }
    query = this.selection(query, filter);
    if (filter.profiles !== null) query = query.where('s.profile', 'in', filter.profiles);
    if (filter.profile) query = query.where('s.profile', '=', filter.profile);
    if (filter.source) query = query.where('s.source', '=', filter.source);
    if (filter.model) query = query.where('s.model', '=', filter.model);
    if (filter.userId) query = query.where('s.user_id', '=', filter.userId);
    if (filter.status === 'open') query = query.where('s.ended_at', 'is', null);
    if (filter.status === 'ended') query = query.where('s.ended_at', 'is not', null);
    if (filter.archived === 'exclude') query = query.where('s.archived', '=', 0);
    if (filter.archived === 'only') query = query.where('s.archived', '=', 1);
    if (!filter.includeHidden) query = query.where('s.hidden', '=', 0);
    if (!filter.includeChildren) query = query.where('s.delegated', '=', 0);
    if (filter.started?.from !== undefined) query = query.where('s.started_at', '>=', filter.started.from);
    if (filter.started?.to !== undefined) query = query.where('s.started_at', '<', filter.started.to);
    if (filter.active?.from !== undefined) query = query.where('s.last_activity_at', '>=', filter.active.from);
    if (filter.active?.to !== undefined) query = query.where('s.last_activity_at', '<', filter.active.to);
    if (filter.handoff) query = query.where('s.handoff_state', '=', filter.handoff);
    for (const labelIds of filter.labelIdSets ?? []) {
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('session_labels as sl')
            .select('sl.session_id')
            .whereRef('sl.session_id', '=', 's.id')
            .where('sl.label_id', 'in', labelIds.length ? [...labelIds] : ['']),
        ),
      );
    }
    const tokens = sortKey('tokens');
    if (filter.tokens?.min !== undefined) query = query.where(tokens, '>=', filter.tokens.min);
    if (filter.tokens?.max !== undefined) query = query.where(tokens, '<=', filter.tokens.max);
    if (filter.costUsd?.min !== undefined) query = query.where('s.estimated_cost_usd', '>=', filter.costUsd.min);
    if (filter.costUsd?.max !== undefined) query = query.where('s.estimated_cost_usd', '<=', filter.costUsd.max);
    if (filter.maxMessages !== undefined) query = query.where('s.message_count', '<=', filter.maxMessages);
    if (filter.q) {
      const pattern = likeContains(filter.q.toLowerCase());
      query = query.where((eb) =>
        eb.or([
          sql<boolean>`lower(s.title) like ${pattern} escape '\\'`,
          sql<boolean>`lower(s.preview) like ${pattern} escape '\\'`,
          sql<boolean>`lower(s.id) like ${pattern} escape '\\'`,
        ]),
      );
    }
    return query;
  }

  /** The selection filters agent runtimes use (docs/api.md, "Sessions for agent runtimes"). */
  private selection<Q extends SessionSelectQuery>(query: Q, filter: SessionListFilter): Q {
    let q = query as SessionSelectQuery;
    if (filter.sources !== undefined) q = q.where('s.source', 'in', filter.sources.length ? [...filter.sources] : ['']);
    if (filter.excludeSources?.length) q = q.where('s.source', 'not in', [...filter.excludeSources]);
    if (filter.cwdPrefix !== undefined) {
      const prefix = filter.cwdPrefix;
      const under = (separator: string) =>
        sql<boolean>`substr(s.cwd, 1, ${[...prefix].length + 1}) = ${prefix + separator}`;
      q = q.where((eb) => eb.or([eb('s.cwd', '=', prefix), under('/'), under('\\')]));
    }
    if (filter.minMessages !== undefined && filter.minMessages > 0) {
      q = q.where('s.message_count', '>=', filter.minMessages);
    }
    if (filter.sessionKey !== undefined) q = q.where('s.session_key', '=', filter.sessionKey);
    if (filter.chatId !== undefined) q = q.where('s.chat_id', '=', filter.chatId);
    if (filter.chatType !== undefined) q = q.where('s.chat_type', '=', filter.chatType);
    if (filter.threadId !== undefined) q = q.where('s.thread_id', '=', filter.threadId);
    if (filter.keyed === true) q = q.where('s.session_key', 'is not', null);
    if (filter.keyed === false) q = q.where('s.session_key', 'is', null);
    if (filter.idPrefix !== undefined) {
      q = q.where(sql<boolean>`substr(s.id, 1, ${filter.idPrefix.length}) = ${filter.idPrefix}`);
    }
    if (filter.ids !== undefined) q = q.where('s.id', 'in', filter.ids.length ? [...filter.ids] : ['']);
    if (filter.sessionId !== undefined) q = q.where('s.id', '=', filter.sessionId);
    return q as Q;
  }

  /** Exact counts of the rows a list filter selects, and of the messages they store (hidden rows aside). */
  async countSelected(db: Executor, filter: SessionListFilter): Promise<{ sessions: number; messages: number }> {
    if (filter.profiles !== null && filter.profiles.length === 0) return { sessions: 0, messages: 0 };
    const sessions = await db
      .selectFrom(this.filteredTips(db, filter).select('s.id').as('m'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const messages = await db
      .selectFrom('messages as msg')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('msg.session_id', 'in', this.filteredTips(db, filter).select('s.id'))
      .where('msg.display_kind', '<>', 'hidden')
      .executeTakeFirstOrThrow();
    return { sessions: Number(sessions.n), messages: Number(messages.n) };
  }

  /** Up to `limit` visible ids of the profiles starting with `prefix`, newest start first. */
  async idsWithPrefix(db: Executor, profiles: string[] | null, prefix: string, limit: number): Promise<string[]> {
    if (profiles !== null && profiles.length === 0) return [];
    let query = db
      .selectFrom('sessions')
      .select('id')
      .where('hidden_for', 'is', null)
      .where(sql<boolean>`substr(id, 1, ${prefix.length}) = ${prefix}`);
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    const rows = await query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map((row) => row.id);
  }

  /** Up to `limit` visible ids of the profiles containing `needle` (case-insensitive), newest activity first. */
  async idsContaining(db: Executor, profiles: string[] | null, needle: string, limit: number): Promise<string[]> {
    if (profiles !== null && profiles.length === 0) return [];
    let query = db
      .selectFrom('sessions')
      .select('id')
      .where('hidden_for', 'is', null)
      .where(sql<boolean>`lower(id) like ${likeContains(needle.toLowerCase())} escape '\\'`);
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    const rows = await query.orderBy('last_activity_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map((row) => row.id);
  }
}
