import { SUBSTRING_EXCLUDED_SOURCES } from '../domain/message-content.js';

/** What a search looks at (docs/search.md, "Scope"), as the port's filter takes it. */
export interface SearchScope {
  /** Only these surfaces. */
  sources?: string[];
  /** Never these surfaces. */
  excludeSources: string[];
  /** Leave out sub-agent sessions (delegates, whatever their surface): `subagent` is excluded. */
  excludeDelegates: boolean;
  /** Leave out tool results (role `tool`): unless the caller asks for that role. */
  excludeToolRows: boolean;
  /**
   * The default scope: exactly what the substring index covers (`messages.substring_indexed`,
   * decided when each message is written) — word and substring search agree on it.
   */
  defaultScope: boolean;
}

/**
 * The one default scope of search, for both indexes: the conversations people had — no tool
 * results, no `cron` or `subagent` sessions, no delegates — which is what the substring index
 * holds. A query widens it by naming what it wants: `source=cron` (a named surface is never left
 * out by default), `excludeSource=…` (replaces the default exclusions; empty leaves none out),
 * `role=tool` (or `tool` among `roles`), or one `sessionId` (the whole session, whatever it is).
 */
export function searchScope(query: {
  source?: readonly string[];
  excludeSource?: readonly string[];
  role?: string;
  roles?: readonly string[];
  sessionId?: string;
}): SearchScope {
  const named = new Set(query.source ?? []);
  const defaults = query.sessionId !== undefined ? [] : [...SUBSTRING_EXCLUDED_SOURCES].filter((s) => !named.has(s));
  const excludeSources = [...(query.excludeSource ?? defaults)];
  const excludeToolRows = query.role !== 'tool' && !(query.roles ?? []).includes('tool');
  const defaultScope =
    query.excludeSource === undefined &&
    query.sessionId === undefined &&
    excludeToolRows &&
    ![...named].some((source) => SUBSTRING_EXCLUDED_SOURCES.has(source));
  return {
    sources: named.size > 0 ? [...named] : undefined,
    excludeSources,
    excludeDelegates: excludeSources.includes('subagent'),
    excludeToolRows,
    defaultScope,
  };
}
