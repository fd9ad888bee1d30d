import type { SessionListResponse } from '@statehouse/contracts';
import { ButtonLink, EmptyState, List, Pagination, ResultsCard } from '@/app/ui/common';
import { plural } from '@/lib/format';
import { type SessionListRaw, sessionListHref } from '@/lib/session-list-state';
import { SelectionControls } from './SelectionControls';
import { SessionRow } from './SessionRow';
import './sessions.css';

/** Row checkboxes belong to this GET form: submitting it opens the deletion preview (/delete?ids=…). */
const SELECTION_FORM = 'session-selection';

/** One page of the sessions list, selectable for a bulk delete, with keyset paging. */
export function SessionResults({ page, raw }: { page: SessionListResponse; raw: SessionListRaw }) {
  const filtered = Boolean(raw.q || raw.source || raw.status || raw.archived || raw.includeChildren);
  return (
    <ResultsCard
      toolbar={
        <>
          <span>
            {plural(page.items.length, 'session')} on this page
            {raw.cursor ? ' (continued)' : ''}
          </span>
          {page.items.length > 0 ? (
            <form id={SELECTION_FORM} action="/delete" method="get" className="selection-form">
              <input type="hidden" name="back" value={sessionListHref(raw)} />
              <SelectionControls formId={SELECTION_FORM} listKey={sessionListHref(raw)} />
            </form>
          ) : null}
        </>
      }
      pager={
        raw.cursor || page.nextCursor ? (
          <Pagination
            label="Sessions pages"
            firstHref={raw.cursor ? sessionListHref(raw, { cursor: null }) : null}
            nextHref={page.nextCursor ? sessionListHref(raw, { cursor: page.nextCursor }) : null}
          />
        ) : null
      }
    >
      {page.items.length === 0 ? (
        <EmptyState
          title={filtered ? 'No sessions match these filters' : 'No sessions yet'}
          description={
            filtered
              ? 'Try another source or status, include archived sessions, or clear the text filter.'
              : 'Sessions appear here as soon as an agent runtime writes its first transcript.'
          }
          action={
            filtered ? <ButtonLink href={sessionListHref({ profile: raw.profile })}>Clear filters</ButtonLink> : null
          }
        />
      ) : (
        <List label="Sessions">
          {page.items.map((item) => (
            <SessionRow key={item.id} item={item} showProfile={!raw.profile} selectionForm={SELECTION_FORM} />
          ))}
        </List>
      )}
    </ResultsCard>
  );
}
