import type { Metadata } from 'next';
import { Alert, ButtonLink, Card, EmptyState, List, Pagination } from '@/app/ui/common';
import { ApiErrorAlert } from '@/app/ui/common/ApiErrorAlert';
import { SelectionControls } from '@/app/ui/sessions/SelectionControls';
import { SessionFilters } from '@/app/ui/sessions/SessionFilters';
import { SessionRow } from '@/app/ui/sessions/SessionRow';
import { listSessions } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { plural } from '@/lib/format';
import type { RawSearchParams } from '@/lib/paths';
import { parseSessionListState, sessionListHref } from '@/lib/session-list-state';

export const metadata: Metadata = { title: 'Sessions' };

/** Row checkboxes belong to this GET form: submitting it opens the deletion preview (/delete?ids=…). */
const SELECTION_FORM = 'session-selection';

export default async function SessionsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseSessionListState(await searchParams);
  const { raw } = state;
  const filtered = Boolean(raw.q || raw.source || raw.status || raw.archived || raw.includeChildren);
  const result = state.ok ? await attempt(() => listSessions(state.query)) : null;

  return (
    <>
      <div className="page-header">
        <div>
          <h1 className="page-header__title">Sessions</h1>
          <p className="page-header__description">
            {raw.profile ? (
              <>
                Conversations in profile <strong>{raw.profile}</strong>
              </>
            ) : (
              'Conversations across all your profiles'
            )}
            , one row per logical conversation.
          </p>
        </div>
      </div>

      <Card>
        <SessionFilters raw={raw} />
      </Card>

      {!state.ok ? (
        <Alert
          tone="danger"
          role="alert"
          title="These filters are not valid"
          actions={
            <ButtonLink href="/sessions" size="sm">
              Reset filters
            </ButtonLink>
          }
        >
          <ul>
            {state.issues.map((issue) => (
              <li key={issue}>{issue}</li>
            ))}
          </ul>
        </Alert>
      ) : result && !result.ok ? (
        <ApiErrorAlert error={result.error} title="Sessions could not be loaded" />
      ) : result?.ok ? (
        <Card className="results-card" padded>
          <div className="results-toolbar">
            <span>
              {plural(result.value.items.length, 'session')} on this page
              {raw.cursor ? ' (continued)' : ''}
            </span>
            {result.value.items.length > 0 ? (
              <form id={SELECTION_FORM} action="/delete" method="get" className="selection-form">
                <input type="hidden" name="back" value={sessionListHref(raw)} />
                <SelectionControls formId={SELECTION_FORM} listKey={sessionListHref(raw)} />
              </form>
            ) : null}
          </div>
          {result.value.items.length === 0 ? (
            <EmptyState
              title={filtered ? 'No sessions match these filters' : 'No sessions yet'}
              description={
                filtered
                  ? 'Try another source or status, include archived sessions, or clear the text filter.'
                  : 'Sessions appear here as soon as an agent runtime writes its first transcript.'
              }
              action={
                filtered ? (
                  <ButtonLink href={sessionListHref({ profile: raw.profile })}>Clear filters</ButtonLink>
                ) : null
              }
            />
          ) : (
            <List label="Sessions">
              {result.value.items.map((item) => (
                <SessionRow key={item.id} item={item} showProfile={!raw.profile} selectionForm={SELECTION_FORM} />
              ))}
            </List>
          )}
          {raw.cursor || result.value.nextCursor ? (
            <div className="results-footer">
              <Pagination
                label="Sessions pages"
                firstHref={raw.cursor ? sessionListHref(raw, { cursor: null }) : null}
                nextHref={result.value.nextCursor ? sessionListHref(raw, { cursor: result.value.nextCursor }) : null}
              />
            </div>
          ) : null}
        </Card>
      ) : null}
    </>
  );
}
