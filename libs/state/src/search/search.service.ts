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
import { LineageRepository } from '../lineage/lineage.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { DomainError, ValidationError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';
import type { SearchFilter, SearchPort, SearchRow } from './search.port.js';
import { planSearch } from './search-query.js';

type Mode = 'word' | 'substring';

export class SearchService {
  private readonly lineage = new LineageRepository();

  constructor(
    private readonly db: Db,
    private readonly port: SearchPort,
    private readonly logger: Logger,
  ) {}

  /**
   * Sanitized, owner-fenced search over visible messages. CJK text goes to the substring index;
   * in `auto` mode a word query that finds nothing retries as substrings ("igra" finds "trigram").
   * If an index is unusable the answer is a bounded scan marked `degraded`, never an error. Hits
   * carry their conversation (tip id and title) and the answer a total counted up to 100.
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
    const filter: SearchFilter = {
      profiles: profileScope(ctx.principal),
      from,
      to,
      profile: query.profile,
      source: query.source,
      role: query.role as MessageRole | undefined,
      limit: query.limit + 1,
    };
    let cursor: { mode: Mode; rank: number; id: number } | undefined;
    if (query.cursor) {
      const [tag, rank, id] = decodeCursor(query.cursor, ['string', 'number', 'number']);
      cursor = { mode: tag === 's' ? 'substring' : 'word', rank: Number(rank), id: Number(id) };
    }
    let mode: Mode = cursor?.mode ?? (query.mode === 'auto' ? (plan.hasCjk ? 'substring' : 'word') : query.mode);
    if (mode === 'word' && plan.terms.length === 0) mode = 'substring';
    if (mode === 'substring' && plan.substrings.length === 0) return empty(mode);

    try {
      let rows = await this.run(mode, plan, filter, cursor);
      if (rows.length === 0 && !cursor && query.mode === 'auto' && mode === 'word' && plan.substrings.length > 0) {
        mode = 'substring';
        rows = await this.run(mode, plan, filter, undefined);
      }
      const total = await this.total(mode, plan, filter, rows.length, query.limit, cursor !== undefined);
      return { ...(await this.page(rows, query.limit, mode)), degraded: false, total };
    } catch (error) {
      const mapped = toDomainError(error);
      if (mapped instanceof DomainError) throw mapped;
      // The index is unusable (missing, corrupt, being rebuilt): degrade to a bounded scan.
      this.logger.warn('search index unusable; answering with a bounded scan', { error: String(error) });
      try {
        const rows = await this.port.scan(this.db, plan.substrings, filter, cursor?.id);
        // A bounded scan sees only the newest messages: what it found is a floor, never "exact".
        const total = { count: Math.min(rows.length, query.limit), exact: false };
        return { ...(await this.page(rows, query.limit, 'substring')), degraded: true, total };
      } catch (scanError) {
        throw toDomainError(scanError);
      }
    }
  }

  /**
   * Matches counted up to `SEARCH_TOTAL_BOUND` ("100+" beyond it). A first page that holds every
   * match needs no second query.
   */
  private async total(
    mode: Mode,
    plan: ReturnType<typeof planSearch>,
    filter: SearchFilter,
    found: number,
    limit: number,
    paged: boolean,
  ): Promise<BoundedCount> {
    if (!paged && found <= limit) return { count: found, exact: true };
    const counted = await this.port.count(
      this.db,
      mode,
      { terms: plan.terms, substrings: plan.substrings },
      filter,
      SEARCH_TOTAL_BOUND,
    );
    return { count: Math.min(counted, SEARCH_TOTAL_BOUND), exact: counted <= SEARCH_TOTAL_BOUND };
  }

  private run(
    mode: Mode,
    plan: ReturnType<typeof planSearch>,
    filter: SearchFilter,
    cursor: { rank: number; id: number } | undefined,
  ): Promise<SearchRow[]> {
    return mode === 'word'
      ? this.port.word(this.db, plan.terms, filter, cursor)
      : this.port.substring(this.db, plan.substrings, filter, cursor?.id);
  }

  private async page(rows: SearchRow[], limit: number, mode: Mode) {
    const page = rows.slice(0, limit);
    const tips = await this.lineage.tipsOf(
      this.db,
      page.map((row) => row.sessionId),
    );
    const tipTitles = await this.lineage.titlesOf(this.db, [...new Set(tips.values())]);
    const items: SearchHit[] = page.map((row) => ({
      sessionId: row.sessionId,
      tipSessionId: tips.get(row.sessionId) ?? row.sessionId,
      sessionTitle: row.title,
      tipSessionTitle: tipTitles.get(tips.get(row.sessionId) ?? row.sessionId) ?? row.title,
      profile: row.profile,
      source: row.source,
      messageId: row.messageId,
      role: row.role as MessageRole,
      snippet: row.snippet,
      rank: row.rank,
      timestamp: toIso(row.timestamp),
    }));
    const last = page[page.length - 1];
    return {
      items,
      mode,
      nextCursor:
        rows.length > limit && last ? encodeCursor([mode === 'word' ? 'w' : 's', last.rank, last.messageId]) : null,
    };
  }
}
