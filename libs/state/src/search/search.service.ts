import type { MessageRole, SearchHit, SearchQuery, SearchResponse } from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { LineageRepository } from '../lineage/lineage.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { DomainError } from '../shared/errors.js';
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
   * If an index is unusable the answer is a bounded scan marked `degraded`, never an error.
   */
  async search(ctx: OperationContext, query: SearchQuery): Promise<SearchResponse> {
    const empty = (mode: Mode): SearchResponse => ({
      items: [],
      nextCursor: null,
      mode,
      degraded: false,
      total: { count: 0, exact: true },
    });
    if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return empty('word');
    const plan = planSearch(query.q);
    const filter: SearchFilter = {
      profiles: profileScope(ctx.principal),
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
      return { ...(await this.page(rows, query.limit, mode)), degraded: false };
    } catch (error) {
      const mapped = toDomainError(error);
      if (mapped instanceof DomainError) throw mapped;
      // The index is unusable (missing, corrupt, being rebuilt): degrade to a bounded scan.
      this.logger.warn('search index unusable; answering with a bounded scan', { error: String(error) });
      try {
        const rows = await this.port.scan(this.db, plan.substrings, filter, cursor?.id);
        return { ...(await this.page(rows, query.limit, 'substring')), degraded: true };
      } catch (scanError) {
        throw toDomainError(scanError);
      }
    }
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
    const items: SearchHit[] = page.map((row) => ({
      sessionId: row.sessionId,
      tipSessionId: tips.get(row.sessionId) ?? row.sessionId,
      sessionTitle: row.title,
      // TODO(i11api search step, after merging main): the tip's own title.
      tipSessionTitle: row.title,
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
      // TODO(i11api search step, after merging main): a bounded count of every match.
      total: { count: items.length, exact: rows.length <= limit },
      nextCursor:
        rows.length > limit && last ? encodeCursor([mode === 'word' ? 'w' : 's', last.rank, last.messageId]) : null,
    };
  }
}
