import {
  type BoundedCount,
  instantMs,
  type MessageRole,
  SEARCH_TOTAL_BOUND,
  type SearchHit,
  type SearchQuery,
  type SearchResponse,
} from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { labelIdSets } from '../domain/label-filter.js';
import { LineageRepository } from '../repositories/lineage.repository.js';
import { SearchContextRepository } from '../repositories/search-context.repository.js';
import type { SearchFilter, SearchPort, SearchRow, TitleRow } from '../search/search.port.js';
import { planSearch, type SearchPlan } from '../search/search-query.js';
import { type SearchScope, searchScope } from '../search/search-scope.js';
import { makeSnippet } from '../search/snippet.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import { DomainError, ValidationError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';

/** (index, rank, message id) of the last hit of a page: `w` word index, `s` substring index. */
const SEARCH_CURSOR = cursorShape(CursorPart.tag('w', 's'), CursorPart.rank, CursorPart.id);

type Mode = 'word' | 'substring';

export class SearchService {
  private readonly lineage = new LineageRepository();
  private readonly hitContext = new SearchContextRepository();

  constructor(
    /** Where searches read: the read pool on SQLite (a deadline, off the event loop). */
    private readonly db: Db,
    private readonly port: SearchPort,
    private readonly logger: Logger,
    /** Whether a chunked index rebuild is under way (the indexes are incomplete meanwhile). */
    private readonly rebuilding: () => Promise<boolean> = async () => false,
    /**
     * SQLite: indexes committed messages still pending — a COMMIT soon after an index flush leaves
     * its rows for the next one (docs/search.md) — so a search finds every append answered before it.
     */
    private readonly indexPending: () => Promise<void> = async () => undefined,
  ) {}

  /**
   * Sanitized, owner-fenced search over visible messages (docs/domain.md §7). Both indexes answer
   * one default scope — what the substring index holds: no tool results, no cron, sub-agent or
   * delegate sessions (search-scope.ts) — which `source`, `excludeSource`, `role=tool` and
   * `sessionId` widen. CJK text goes to the substring index; in `auto` mode a word query that finds
   * nothing retries as substrings ("igra" finds "trigram"). A substring query whose scope reaches
   * past the substring index adds a bounded scan of the rows outside it. The first page names up
   * to five sessions whose title matches. If an index is unusable the answer is a bounded scan
   * marked `degraded`, never an error. Hits carry their conversation (tip id and title) and the
   * answer a total of matching messages counted up to 100.
   */
  async search(ctx: OperationContext, query: SearchQuery): Promise<SearchResponse> {
    const empty = (mode: Mode): SearchResponse => ({
      items: [],
      nextCursor: null,
      mode,
      degraded: false,
      total: { count: 0, exact: true },
    });
    const from = query.from === undefined ? undefined : instantMs(query.from);
    const to = query.to === undefined ? undefined : instantMs(query.to);
    if (from !== undefined && to !== undefined && from >= to) throw new ValidationError('`to` must be after `from`');
    if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return empty('word');
    const plan = planSearch(query.q);
    const scope = searchScope(query);
    const filter: SearchFilter = {
      profiles: profileScope(ctx.principal),
      from,
      to,
      profile: query.profile,
      sources: scope.sources,
      excludeSources: scope.excludeSources,
      excludeDelegates: scope.excludeDelegates,
      excludeToolRows: scope.excludeToolRows,
      ...(scope.defaultScope ? { substringIndexed: 1 as const } : {}),
      role: query.role as MessageRole | undefined,
      sessionId: query.sessionId,
      roles: query.roles as MessageRole[] | undefined,
      labelIdSets: query.label
        ? await labelIdSets(this.db, query.profile ? [query.profile] : profileScope(ctx.principal), query.label)
        : undefined,
      limit: query.limit + 1,
    };
    const context = query.context ?? 0;
    let cursor: { mode: Mode; rank: number; id: number } | undefined;
    if (query.cursor) {
      const [tag, rank, id] = decodeCursor(query.cursor, SEARCH_CURSOR);
      cursor = { mode: tag === 's' ? 'substring' : 'word', rank, id };
    }
    let mode: Mode = cursor?.mode ?? (query.mode === 'auto' ? (plan.hasCjk ? 'substring' : 'word') : query.mode);
    if (mode === 'word' && plan.terms.length === 0) mode = 'substring';
    if (mode === 'substring' && plan.substrings.length === 0) return empty(mode);

    if (await this.rebuilding().catch(() => false)) return this.degraded(plan, query.limit, filter, cursor?.id);
    try {
      await this.indexPending();
    } catch (error) {
      // The write lock not had in time (a long transaction of another process): answer from the
      // indexes as they are; only messages of the last moments can be missing.
      this.logger.warn('search could not index the newest messages first', { error: String(error) });
    }
    try {
      let rows = await this.run(mode, plan, filter, scope, cursor);
      if (rows.length === 0 && !cursor && query.mode === 'auto' && mode === 'word' && plan.substrings.length > 0) {
        mode = 'substring';
        rows = await this.run(mode, plan, filter, scope, undefined);
      }
      // Sessions whose title matches lead the first page — those the message hits do not already
      // show — leaving room for at least one message hit (and so for the cursor).
      const shown = new Set(rows.slice(0, query.limit).map((row) => row.sessionId));
      const titles =
        cursor || query.titles === false
          ? []
          : (await this.port.titles(this.db, plan.substringClauses, filter))
              .filter((row) => !shown.has(row.sessionId))
              .slice(0, Math.max(0, query.limit - 1));
      const total = await this.total(mode, plan, filter, scope, rows.length, query.limit - titles.length, !!cursor);
      const page = await this.page(titles, rows, query.limit, mode, plan.substrings, context);
      return { ...page, degraded: false, total };
    } catch (error) {
      const mapped = toDomainError(error);
      if (mapped instanceof DomainError) throw mapped;
      // The index is unusable (missing, corrupt, being rebuilt): degrade to a bounded scan.
      this.logger.warn('search index unusable; answering with a bounded scan', { error: String(error) });
      return this.degraded(plan, query.limit, filter, cursor?.id);
    }
  }

  /** The bounded scan, marked degraded: while an index is unusable or being rebuilt. */
  private async degraded(
    plan: SearchPlan,
    limit: number,
    filter: SearchFilter,
    afterId: number | undefined,
  ): Promise<SearchResponse> {
    try {
      const rows = await this.port.scan(this.db, plan.substringClauses, filter, afterId);
      // A bounded scan sees only the newest messages: what it found is a floor, never "exact".
      const total = { count: Math.min(rows.length, limit), exact: false };
      return { ...(await this.page([], rows, limit, 'substring', plan.substrings, 0)), degraded: true, total };
    } catch (scanError) {
      throw toDomainError(scanError);
    }
  }

  /**
   * Matching messages counted up to `SEARCH_TOTAL_BOUND` ("100+" beyond it); title hits are not
   * messages and are not counted. A first page that holds every match needs no second query.
   */
  private async total(
    mode: Mode,
    plan: SearchPlan,
    filter: SearchFilter,
    scope: SearchScope,
    found: number,
    messageLimit: number,
    paged: boolean,
  ): Promise<BoundedCount> {
    if (!paged && found <= messageLimit) return { count: found, exact: true };
    let counted: number;
    if (mode === 'word' || scope.defaultScope) {
      counted = await this.port.count(this.db, mode, plan, filter, SEARCH_TOTAL_BOUND);
    } else {
      const inside = await this.port.count(this.db, mode, plan, { ...filter, substringIndexed: 1 }, SEARCH_TOTAL_BOUND);
      const outside =
        inside > SEARCH_TOTAL_BOUND
          ? 0
          : (
              await this.port.scan(this.db, plan.substringClauses, {
                ...filter,
                substringIndexed: 0,
                limit: SEARCH_TOTAL_BOUND + 1 - inside,
              })
            ).length;
      counted = inside + outside;
    }
    return { count: Math.min(counted, SEARCH_TOTAL_BOUND), exact: counted <= SEARCH_TOTAL_BOUND };
  }

  private async run(
    mode: Mode,
    plan: SearchPlan,
    filter: SearchFilter,
    scope: SearchScope,
    cursor: { rank: number; id: number } | undefined,
  ): Promise<SearchRow[]> {
    if (mode === 'word') return this.port.word(this.db, plan.clauses, filter, cursor);
    if (scope.defaultScope) return this.port.substring(this.db, plan.substringClauses, filter, cursor?.id);
    // A scope past the substring index: the index for the rows it holds, a bounded scan of the newest
    // rows it leaves out (tool results, cron and sub-agent sessions), merged newest first.
    const [inside, outside] = await Promise.all([
      this.port.substring(this.db, plan.substringClauses, { ...filter, substringIndexed: 1 }, cursor?.id),
      this.port.scan(this.db, plan.substringClauses, { ...filter, substringIndexed: 0 }, cursor?.id),
    ]);
    return [...inside, ...outside].sort((a, b) => b.messageId - a.messageId).slice(0, filter.limit);
  }

  private async page(
    titles: TitleRow[],
    rows: SearchRow[],
    limit: number,
    mode: Mode,
    terms: readonly string[],
    context: number,
  ) {
    const messageLimit = limit - titles.length;
    const page = rows.slice(0, messageLimit);
    const details = await this.hitContext.details(this.db, [
      ...titles.map((row) => row.messageId),
      ...page.map((row) => row.messageId),
    ]);
    const detailsOf = (messageId: number, sessionStartedAt: number) => {
      const found = details.get(messageId);
      return {
        toolName: found?.toolName ?? null,
        model: found?.model ?? null,
        sessionStartedAt: toIso(found?.sessionStartedAt ?? sessionStartedAt),
      };
    };

    const tips = await this.lineage.tipsOf(this.db, [
      ...titles.map((row) => row.sessionId),
      ...page.map((row) => row.sessionId),
    ]);
    const tipTitles = await this.lineage.titlesOf(this.db, [...new Set(tips.values())]);
    const tipOf = (sessionId: string, title: string | null) => {
      const tipSessionId = tips.get(sessionId) ?? sessionId;
      return { tipSessionId, tipSessionTitle: tipTitles.get(tipSessionId) ?? title };
    };
    const items: SearchHit[] = [
      ...titles.map((row) => ({
        sessionId: row.sessionId,
        ...tipOf(row.sessionId, row.title),
        sessionTitle: row.title,
        profile: row.profile,
        source: row.source,
        messageId: row.messageId,
        role: row.role as MessageRole,
        snippet: makeSnippet(row.title, terms),
        rank: 0,
        timestamp: toIso(row.timestamp),
        matchedIn: 'title' as const,
        ...detailsOf(row.messageId, row.timestamp),
      })),
      ...page.map((row) => ({
        sessionId: row.sessionId,
        ...tipOf(row.sessionId, row.title),
        sessionTitle: row.title,
        profile: row.profile,
        source: row.source,
        messageId: row.messageId,
        role: row.role as MessageRole,
        snippet: row.snippet,
        rank: row.rank,
        timestamp: toIso(row.timestamp),
        matchedIn: row.matchedIn,
        ...detailsOf(row.messageId, row.timestamp),
      })),
    ];
    if (context > 0) {
      const neighbours = await this.hitContext.around(this.db, items, context);
      for (const item of items) {
        item.context = (neighbours.get(item.messageId) ?? []).map((message) => ({
          ...message,
          role: message.role as MessageRole,
        }));
      }
    }
    const last = page[page.length - 1];
    return {
      items,
      mode,
      nextCursor:
        rows.length > messageLimit && last
          ? encodeCursor([mode === 'word' ? 'w' : 's', last.rank, last.messageId])
          : null,
    };
  }
}
