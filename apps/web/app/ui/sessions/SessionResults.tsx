import type { Label, SessionListResponse } from '@statehouse/contracts';
import { ButtonLink, EmptyState, List, Pagination, ResultsCard, SegmentedNav } from '@/app/ui/common';
import { SessionListExport } from '@/app/ui/export/SessionListExport';
import { BulkLabelForm } from '@/app/ui/labels/BulkLabelForm';
import { formatBounded, plural } from '@/lib/format';
import { isCompact, SESSION_FILTER_KEYS, type SessionListRaw, sessionListHref } from '@/lib/session-list-state';
import { SelectionControls } from './SelectionControls';
import { SessionRow } from './SessionRow';
import { SessionTable } from './SessionTable';
import './sessions.css';

/** Row checkboxes belong to this GET form: submitting it opens the deletion preview (/delete?ids=…). */
const SELECTION_FORM = 'session-selection';

/** One page of the sessions list (rows or a compact table), selectable for a bulk delete, keyset paged. */
export function SessionResults({
  page,
  raw,
  labels = [],
}: {
  page: SessionListResponse;
  raw: SessionListRaw;
  /** The profile's labels, for labelling the selection (a profile must be chosen). */
  labels?: Label[];
}) {
  const filtered = SESSION_FILTER_KEYS.some((key) => raw[key]);
  const compact = isCompact(raw);
  return (
    <ResultsCard
      liveToolbar
      toolbar={
        <>
          <span data-testid="session-total">
            {plural(page.items.length, 'session')} on this page of {formatBounded(page.total)}
          </span>
          <SegmentedNav
            label="Layout"
            options={[
              { href: sessionListHref(raw, { view: null }), label: 'Detailed', current: !compact },
              { href: sessionListHref(raw, { view: 'compact' }), label: 'Compact', current: compact },
            ]}
          />
          {page.items.length > 0 ? <SessionListExport raw={raw} total={page.total} /> : null}
          {page.items.length > 0 && !compact ? (
            <form id={SELECTION_FORM} action="/delete" method="get" className="selection-form">
              <input type="hidden" name="back" value={sessionListHref(raw)} />
              <SelectionControls formId={SELECTION_FORM} listKey={sessionListHref(raw)} />
            </form>
          ) : null}
          {page.items.length > 0 && !compact && raw.profile ? (
            <BulkLabelForm profile={raw.profile} labels={labels} selectionForm={SELECTION_FORM} />
          ) : null}
        </>
      }
      pager={
        page.prevCursor || page.nextCursor ? (
          <Pagination
            label="Sessions pages"
            firstHref={page.prevCursor ? sessionListHref(raw, { cursor: null }) : null}
            previousHref={page.prevCursor ? sessionListHref(raw, { cursor: page.prevCursor }) : null}
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
              ? 'Try another source, model or date range, include archived sessions, or clear the text filter.'
              : 'Sessions appear here as soon as an agent runtime writes its first transcript.'
          }
          action={
            filtered ? <ButtonLink href={sessionListHref({ profile: raw.profile })}>Clear filters</ButtonLink> : null
          }
        />
      ) : compact ? (
        <SessionTable items={page.items} showProfile={!raw.profile} />
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
