import { IdSchema } from '@statehouse/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ApiErrorAlert } from '../../../../components/ApiErrorAlert';
import { SessionMetadata } from '../../../../components/sessions/SessionMetadata';
import { Timestamp } from '../../../../components/Timestamp';
import { MessageItem } from '../../../../components/transcript/MessageItem';
import { Badge, ButtonLink, Card, EmptyState, Pagination } from '../../../../components/ui';
import { ApiProblemError, getSession } from '../../../../lib/api';
import { type Attempt, attempt } from '../../../../lib/attempt';
import { plural } from '../../../../lib/format';
import { type RawSearchParams, sessionHref } from '../../../../lib/paths';
import { sessionHeading, sessionStatus } from '../../../../lib/session-display';
import {
  hiddenToggleHref,
  loadTranscript,
  parseTranscriptView,
  type TranscriptPage,
  type TranscriptView,
  transcriptHrefs,
} from '../../../../lib/transcript';
import { ManageSession } from './ManageSession';

interface SessionPageProps {
  params: Promise<{ id: string }>;
  searchParams: Promise<RawSearchParams>;
}

export async function generateMetadata({ params }: SessionPageProps): Promise<Metadata> {
  const { id } = await params;
  return { title: `Session ${decodeParam(id)}` };
}

/** Ids may contain `:` which arrives percent-encoded; a malformed escape is simply not an id. */
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export default async function SessionPage({ params, searchParams }: SessionPageProps) {
  const id = IdSchema.safeParse(decodeParam((await params).id));
  if (!id.success) notFound();
  const sessionId = id.data;
  const view = parseTranscriptView(await searchParams);

  const [sessionResult, transcriptResult] = await Promise.all([
    attempt(() => getSession(sessionId)),
    attempt(() => loadTranscript(sessionId, view)),
  ]);
  if (!sessionResult.ok) {
    if (sessionResult.error instanceof ApiProblemError && sessionResult.error.status === 404) notFound();
    return (
      <>
        <Breadcrumbs id={sessionId} />
        <ApiErrorAlert error={sessionResult.error} title="This session could not be loaded" />
      </>
    );
  }

  const session = sessionResult.value;
  const heading = sessionHeading(session);
  const status = sessionStatus(session);
  const currentHref = sessionHref(
    sessionId,
    { after: view.after, before: view.before, at: view.at, includeHidden: view.includeHidden || null },
    view.at !== null ? `m-${view.at}` : undefined,
  );

  return (
    <>
      <div>
        <Breadcrumbs id={sessionId} />
        <div className="page-header">
          <div>
            <div className="session-title-row">
              <h1 className="page-header__title" data-testid="session-title">
                {heading.untitled ? <span className="text-muted">{heading.text}</span> : heading.text}
              </h1>
              {session.pinned ? <Badge tone="accent">Pinned</Badge> : null}
              {session.archived ? <Badge tone="warning">Archived</Badge> : null}
              {session.hidden ? <Badge tone="warning">Hidden</Badge> : null}
            </div>
            <div className="session-subtitle">
              <code>{session.id}</code>
              <Badge>{session.profile}</Badge>
              <Badge tone="info">{session.source}</Badge>
              <Badge tone={status.tone} dot>
                {status.label}
                {status.reason ? ` · ${status.reason}` : ''}
              </Badge>
              <span>
                last active <Timestamp iso={session.lastActivityAt} />
              </span>
            </div>
          </div>
        </div>
      </div>

      <div className="session-layout">
        <div className="session-layout__transcript">
          <Card title="Transcript" description={plural(session.messageCount, 'visible message')} padded>
            <Transcript sessionId={sessionId} view={view} result={transcriptResult} />
          </Card>
        </div>
        <div className="session-layout__manage">
          <Card title="Manage">
            <ManageSession
              sessionId={session.id}
              revision={session.revision}
              title={session.title}
              archived={session.archived}
              pinned={session.pinned}
              reloadHref={currentHref}
            />
          </Card>
        </div>
        <aside className="session-layout__details" aria-label="Session details">
          <SessionMetadata session={session} />
        </aside>
      </div>
    </>
  );
}

function Breadcrumbs({ id }: { id: string }) {
  return (
    <nav aria-label="Breadcrumb">
      <ol className="breadcrumbs">
        <li>
          <Link href="/sessions">Sessions</Link>
        </li>
        <li aria-current="page">
          <code>{id}</code>
        </li>
      </ol>
    </nav>
  );
}

function Transcript({
  sessionId,
  view,
  result,
}: {
  sessionId: string;
  view: TranscriptView;
  result: Attempt<TranscriptPage>;
}) {
  const toggle = (
    <div className="transcript-toolbar">
      <nav className="segmented" aria-label="Hidden rows">
        <Link
          className="segmented__option"
          href={hiddenToggleHref(sessionId, view, false)}
          aria-current={!view.includeHidden ? 'true' : undefined}
        >
          Visible only
        </Link>
        <Link
          className="segmented__option"
          href={hiddenToggleHref(sessionId, view, true)}
          aria-current={view.includeHidden ? 'true' : undefined}
        >
          Include hidden rows
        </Link>
      </nav>
    </div>
  );
  if (!result.ok) {
    return (
      <>
        {toggle}
        <ApiErrorAlert error={result.error} title="The transcript could not be loaded" />
      </>
    );
  }
  const page = result.value;
  const hrefs = transcriptHrefs(sessionId, view, page);
  const pager = (
    <Pagination
      label="Transcript pages"
      firstHref={hrefs.first}
      previousHref={hrefs.earlier}
      nextHref={hrefs.later}
      lastHref={hrefs.latest}
      firstLabel="From the start"
      previousLabel="← Earlier"
      nextLabel="Later →"
      lastLabel="Latest"
      status={page.messages.length > 0 ? `Messages #${page.messages[0].id}–#${page.messages.at(-1)?.id}` : undefined}
    />
  );
  const paged = hrefs.first || hrefs.earlier || hrefs.later || hrefs.latest;
  return (
    <div className="transcript-section">
      {toggle}
      {paged ? pager : null}
      {page.messages.length === 0 ? (
        <EmptyState
          title="No messages here"
          description={
            view.includeHidden
              ? 'This part of the transcript is empty.'
              : 'Nothing visible on this page. Hidden scaffolding rows are switched off.'
          }
          action={hrefs.first ? <ButtonLink href={hrefs.first}>From the start</ButtonLink> : null}
        />
      ) : (
        <ol className="transcript" aria-label="Messages">
          {page.messages.map((message) => (
            <MessageItem key={message.id} message={message} highlighted={message.id === page.highlightedId} />
          ))}
        </ol>
      )}
      {paged && page.messages.length > 3 ? pager : null}
    </div>
  );
}
