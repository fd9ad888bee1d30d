import {
  MESSAGE_ROLES,
  type MessageRole,
  SEARCH_MODES,
  type SearchQuery,
  SearchQuerySchema,
} from '@statehouse/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import {
  Alert,
  Badge,
  type BadgeTone,
  ButtonLink,
  Card,
  EmptyState,
  Field,
  Input,
  List,
  ListItem,
  Pagination,
  Select,
  SubmitButton,
} from '@/app/ui/common';
import { ApiErrorAlert } from '@/app/ui/common/ApiErrorAlert';
import { Timestamp } from '@/app/ui/common/Timestamp';
import { Snippet } from '@/app/ui/search/Snippet';
import { searchMessages } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { humanize, plural } from '@/lib/format';
import { firstParam, hrefWith, messageAnchor, type RawSearchParams, sessionHref } from '@/lib/paths';
import { KNOWN_SOURCES } from '@/lib/session-display';

export const metadata: Metadata = { title: 'Search' };

const SEARCH_KEYS = ['q', 'profile', 'source', 'role', 'mode', 'cursor'] as const;
type SearchRaw = Partial<Record<(typeof SEARCH_KEYS)[number], string>>;

/** The transcript's role colours, so a hit looks like the message it links to. */
const ROLE_TONES: Record<MessageRole, BadgeTone> = {
  user: 'accent',
  assistant: 'success',
  tool: 'warning',
  system: 'neutral',
  session_meta: 'neutral',
};

const MODE_LABELS: Record<(typeof SEARCH_MODES)[number], string> = {
  auto: 'Automatic',
  word: 'Whole words',
  substring: 'Substring (CJK, fragments)',
};

export default async function SearchPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const raw: SearchRaw = {};
  for (const key of SEARCH_KEYS) {
    const value = firstParam(params[key])?.trim();
    if (value) raw[key] = value;
  }
  const parsed = raw.q ? SearchQuerySchema.safeParse(raw) : null;
  const result = parsed?.success ? await attempt(() => searchMessages(parsed.data)) : null;

  return (
    <>
      <div className="page-header">
        <div>
          <h1 className="page-header__title">Search</h1>
          <p className="page-header__description">
            Every visible message{raw.profile ? ` in profile ${raw.profile}` : ''}: words, phrases, or any fragment of
            Chinese, Japanese or Korean text.
          </p>
        </div>
      </div>

      <Card>
        <search aria-label="Search messages">
          <form className="filter-form filter-form--search" action="/search" method="get">
            {raw.profile ? <input type="hidden" name="profile" value={raw.profile} /> : null}
            <Field label="Search for" htmlFor="search-q" className="filter-form__wide">
              <Input
                id="search-q"
                name="q"
                type="search"
                required
                maxLength={2048}
                defaultValue={raw.q}
                placeholder="e.g. rollback, 会议, 東京"
              />
            </Field>
            <Field label="Role" htmlFor="search-role">
              <Select id="search-role" name="role" defaultValue={raw.role ?? ''}>
                <option value="">Any role</option>
                {MESSAGE_ROLES.filter((role) => role !== 'session_meta').map((role) => (
                  <option key={role} value={role}>
                    {humanize(role)}
                  </option>
                ))}
              </Select>
            </Field>
            <Field label="Source" htmlFor="search-source">
              <Input
                id="search-source"
                name="source"
                list="search-sources"
                placeholder="Any source"
                defaultValue={raw.source}
                maxLength={64}
                autoCapitalize="none"
                spellCheck={false}
              />
              <datalist id="search-sources">
                {KNOWN_SOURCES.map((source) => (
                  <option key={source} value={source} />
                ))}
              </datalist>
            </Field>
            <Field label="Match" htmlFor="search-mode">
              <Select id="search-mode" name="mode" defaultValue={raw.mode ?? 'auto'}>
                {SEARCH_MODES.map((mode) => (
                  <option key={mode} value={mode}>
                    {MODE_LABELS[mode]}
                  </option>
                ))}
              </Select>
            </Field>
            <div className="filter-form__footer">
              <p className="field__hint">
                Hidden scaffolding is never searched; substring matches skip tool output and cron or sub-agent sessions.
              </p>
              <div className="filter-form__buttons">
                <SubmitButton>Search</SubmitButton>
              </div>
            </div>
          </form>
        </search>
      </Card>

      {!raw.q ? (
        <Card>
          <EmptyState
            icon="⌕"
            title="Search every conversation"
            description="Matches are highlighted; open a result to read it in its transcript."
          />
        </Card>
      ) : parsed && !parsed.success ? (
        <Alert tone="danger" role="alert" title="This search is not valid">
          <ul>
            {parsed.error.issues.map((issue) => (
              <li key={`${issue.path.join('.')}:${issue.message}`}>
                {issue.path.join('.')}: {issue.message}
              </li>
            ))}
          </ul>
        </Alert>
      ) : result && !result.ok ? (
        <ApiErrorAlert error={result.error} title="Search failed" />
      ) : result?.ok && parsed?.success ? (
        <Results raw={raw} query={parsed.data} response={result.value} />
      ) : null}
    </>
  );
}

function Results({
  raw,
  query,
  response,
}: {
  raw: SearchRaw;
  query: SearchQuery;
  response: Awaited<ReturnType<typeof searchMessages>>;
}) {
  const searchHref = (cursor: string | null) => hrefWith('/search', { ...raw, cursor });
  return (
    <Card className="results-card" padded>
      <div className="results-toolbar" aria-live="polite">
        <span data-testid="search-summary">
          {plural(response.items.length, 'result')}
          {raw.cursor ? ' on this page' : ''} for “{query.q}”
        </span>
        <Badge title="The index that answered">{response.mode === 'word' ? 'word index' : 'substring index'}</Badge>
      </div>
      {response.degraded ? (
        <div className="results-toolbar">
          <Alert tone="warning" title="Search is degraded">
            The search index is being rebuilt; results come from a bounded scan and may be incomplete.
          </Alert>
        </div>
      ) : null}
      {response.items.length === 0 ? (
        <EmptyState
          icon="⌕"
          title="No messages match"
          description="Try fewer words, another match mode, or all roles and profiles."
          action={
            raw.role || raw.source || raw.profile ? (
              <ButtonLink href={hrefWith('/search', { q: raw.q, mode: raw.mode })}>Search everywhere</ButtonLink>
            ) : null
          }
        />
      ) : (
        <List label="Search results">
          {response.items.map((hit) => (
            <ListItem key={`${hit.sessionId}:${hit.messageId}`} className="hit">
              <h2 className="hit__heading">
                <Link
                  className="hit__title"
                  href={sessionHref(hit.sessionId, { at: hit.messageId }, messageAnchor(hit.messageId))}
                >
                  {hit.sessionTitle ?? hit.sessionId}
                </Link>
              </h2>
              <p className="hit__snippet">
                <Snippet text={hit.snippet} />
              </p>
              <div className="hit__meta">
                <Badge tone={ROLE_TONES[hit.role]}>{humanize(hit.role)}</Badge>
                {raw.profile ? null : <Badge>{hit.profile}</Badge>}
                <Badge tone="info">{hit.source}</Badge>
                <code>#{hit.messageId}</code>
                <Timestamp iso={hit.timestamp} />
                {hit.tipSessionId !== hit.sessionId ? (
                  <span className="session-row__lineage">
                    <span aria-hidden="true">↳</span> continues in {hit.tipSessionId}
                  </span>
                ) : null}
              </div>
            </ListItem>
          ))}
        </List>
      )}
      {raw.cursor || response.nextCursor ? (
        <div className="results-footer">
          <Pagination
            label="Search result pages"
            firstHref={raw.cursor ? searchHref(null) : null}
            nextHref={response.nextCursor ? searchHref(response.nextCursor) : null}
            firstLabel="First results"
            nextLabel="More results →"
          />
        </div>
      ) : null}
    </Card>
  );
}
