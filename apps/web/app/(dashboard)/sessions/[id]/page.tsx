import { IdSchema, type LineageResponse, type Session } from '@statehouse/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Badge, ButtonLink, Card, EmptyState, Pagination } from '@/app/ui/common';
import { ApiErrorAlert } from '@/app/ui/common/ApiErrorAlert';
import { Timestamp } from '@/app/ui/common/Timestamp';
import { LineageTree } from '@/app/ui/lineage/LineageTree';
import { BusyBadge, BusyNotice } from '@/app/ui/sessions/BusyNotice';
import { LifecycleForm } from '@/app/ui/sessions/LifecycleForm';
import { ManageSession } from '@/app/ui/sessions/ManageSession';
import { RoutingCard } from '@/app/ui/sessions/RoutingCard';
import { SessionMetadata } from '@/app/ui/sessions/SessionMetadata';
import { MessageItem } from '@/app/ui/transcript/MessageItem';
import { ApiProblemError, getLineage, getSession, listRoutes } from '@/lib/api';
import { type Attempt, attempt } from '@/lib/attempt';
import { type ConversationSegment, loadConversation, SEGMENT_MESSAGE_LIMIT } from '@/lib/conversation';
import { DEFAULT_END_REASON, END_REASON_GROUPS, finalEndNote, reopenable } from '@/lib/end-reasons';
import { humanize, plural } from '@/lib/format';
import { edgeCounts } from '@/lib/lineage';
import { hrefWith, type RawSearchParams, sessionHref } from '@/lib/paths';
import { sessionHeading, sessionStatus } from '@/lib/session-display';
import {
  conversationToggleHref,
  hiddenToggleHref,
  loadTranscript,
  parseTranscriptView,
  type TranscriptPage,
  type TranscriptView,
  transcriptHrefs,
} from '@/lib/transcript';

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

  const [sessionResult, lineageResult, routesResult, transcriptResult] = await Promise.all([
    attempt(() => getSession(sessionId)),
    attempt(() => getLineage(sessionId)),
    attempt(async () => (await listRoutes({ sessionId, limit: 50 })).items),
    view.conversation ? null : attempt(() => loadTranscript(sessionId, view)),
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
  const conversation =
    view.conversation && lineageResult.ok
      ? await loadConversation(lineageResult.value, { includeHidden: view.includeHidden })
      : null;

  const session = sessionResult.value;
  const lineage = lineageResult.ok ? lineageResult.value : null;
  const heading = sessionHeading(session);
  const status = sessionStatus(session);
  const currentHref = view.conversation
    ? sessionHref(sessionId, { view: 'conversation', includeHidden: view.includeHidden || null })
    : sessionHref(
        sessionId,
        { after: view.after, before: view.before, at: view.at, includeHidden: view.includeHidden || null },
        view.at !== null ? `m-${view.at}` : undefined,
      );
  const chainLength = lineage?.chain.length ?? 1;

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
              {session.turn ? <BusyBadge turn={session.turn} /> : null}
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
              {chainLength > 1 && lineage ? (
                <span>
                  segment {lineage.chain.indexOf(session.id) + 1} of {chainLength}
                </span>
              ) : null}
              <span>
                last active <Timestamp iso={session.lastActivityAt} />
              </span>
            </div>
          </div>
        </div>
      </div>

      {session.turn ? <BusyNotice turn={session.turn} /> : null}
      {lineage && lineage.tipId !== session.id && lineage.chain.includes(session.id) ? (
        <ContinuedNotice lineage={lineage} />
      ) : null}

      <div className="session-layout">
        <div className="session-layout__transcript">
          <Card
            title={view.conversation ? 'Whole conversation' : 'Transcript'}
            description={
              view.conversation
                ? `${plural(chainLength, 'segment')}, root to tip, read as one transcript`
                : plural(session.messageCount, 'visible message')
            }
            padded
          >
            <div className="transcript-section">
              <TranscriptToggles sessionId={sessionId} view={view} chainLength={chainLength} />
              {conversation ? (
                <ConversationTranscript segments={conversation} view={view} currentId={sessionId} />
              ) : view.conversation && !lineageResult.ok ? (
                <ApiErrorAlert error={lineageResult.error} title="The conversation could not be assembled" />
              ) : transcriptResult ? (
                <SegmentTranscript session={session} view={view} result={transcriptResult} chainLength={chainLength} />
              ) : null}
            </div>
          </Card>
        </div>
        <div className="session-layout__lineage">
          <LineageCard lineage={lineageResult} currentId={session.id} session={session} />
        </div>
        <div className="session-layout__manage">
          <Card title="Manage">
            <div className="manage-stack">
              <ManageSession
                sessionId={session.id}
                revision={session.revision}
                title={session.title}
                archived={session.archived}
                pinned={session.pinned}
                reloadHref={currentHref}
              />
              <section className="manage-section" aria-labelledby="lifecycle-heading">
                <h3 className="metadata-section__title" id="lifecycle-heading">
                  Lifecycle
                </h3>
                <LifecycleForm
                  sessionId={session.id}
                  revision={session.revision}
                  ended={session.endedAt !== null}
                  reopenable={reopenable(session.endReason)}
                  finalNote={session.endedAt ? finalEndNote(session.endReason) : null}
                  reasonGroups={END_REASON_GROUPS}
                  defaultReason={DEFAULT_END_REASON}
                  reloadHref={currentHref}
                />
              </section>
              <DangerZone session={session} lineage={lineage} backHref={currentHref} />
            </div>
          </Card>
        </div>
        <aside className="session-layout__details" aria-label="Session details">
          <RoutingCard session={session} routes={routesResult} />
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

/** A compressed segment that is not the tip: say where the conversation went on. */
function ContinuedNotice({ lineage }: { lineage: LineageResponse }) {
  return (
    <div className="continued-notice" role="note">
      <span>This is an earlier segment of a compressed conversation; it continues in</span>{' '}
      <Link href={sessionHref(lineage.tipId)}>
        <code>{lineage.tipId}</code>
      </Link>
      <span> (the tip).</span>{' '}
      <Link href={sessionHref(lineage.tipId, { view: 'conversation' })}>Read the whole conversation</Link>
    </div>
  );
}

function LineageCard({
  lineage,
  currentId,
  session,
}: {
  lineage: Attempt<LineageResponse>;
  currentId: string;
  session: Session;
}) {
  if (!lineage.ok) {
    return (
      <Card title="Lineage">
        <ApiErrorAlert error={lineage.error} title="The lineage could not be loaded" />
      </Card>
    );
  }
  const value = lineage.value;
  const counts = edgeCounts(value);
  const parts = (['compression', 'branch', 'reset', 'delegate'] as const)
    .filter((kind) => counts[kind] > 0)
    .map((kind) => `${counts[kind]} ${kind}`);
  return (
    <Card
      title="Lineage"
      description={
        value.nodes.length > 1
          ? `${plural(value.nodes.length, 'session')} · ${parts.join(' · ')}`
          : 'A standalone conversation: no parent, no children.'
      }
      className="lineage-card"
    >
      {value.nodes.length > 1 ? (
        <LineageTree lineage={value} currentId={currentId} />
      ) : (
        <p className="lineage-summary">
          Compressions, branches, resets and sub-agents of <code>{session.id}</code> would appear here.
        </p>
      )}
    </Card>
  );
}

function DangerZone({
  session,
  lineage,
  backHref,
}: {
  session: Session;
  lineage: LineageResponse | null;
  backHref: string;
}) {
  const segments = lineage?.chain.length ?? 1;
  const delegates = lineage?.edges.filter((edge) => edge.kind === 'delegate').length ?? 0;
  return (
    <section className="manage-section danger-zone" aria-labelledby="danger-heading">
      <h3 className="metadata-section__title" id="danger-heading">
        Delete
      </h3>
      <p className="danger-zone__text">
        Deletes the whole conversation
        {segments > 1 ? ` (all ${segments} compression segments)` : ''}
        {delegates > 0 ? ' and its sub-agent sessions' : ''}. You will see exactly what goes before you confirm.
      </p>
      <ButtonLink
        href={hrefWith('/delete', { ids: session.id, back: backHref })}
        variant="danger"
        size="sm"
        className="danger-zone__button"
      >
        Delete conversation…
      </ButtonLink>
    </section>
  );
}

function TranscriptToggles({
  sessionId,
  view,
  chainLength,
}: {
  sessionId: string;
  view: TranscriptView;
  chainLength: number;
}) {
  return (
    <div className="transcript-toolbar">
      <div className="transcript-toggles">
        {chainLength > 1 ? (
          <nav className="segmented" aria-label="Transcript scope">
            <Link
              className="segmented__option"
              href={conversationToggleHref(sessionId, view, false)}
              aria-current={!view.conversation ? 'true' : undefined}
            >
              This segment
            </Link>
            <Link
              className="segmented__option"
              href={conversationToggleHref(sessionId, view, true)}
              aria-current={view.conversation ? 'true' : undefined}
            >
              Whole conversation<span className="hide-narrow"> ({chainLength} segments)</span>
            </Link>
          </nav>
        ) : null}
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
    </div>
  );
}

function SegmentTranscript({
  session,
  view,
  result,
  chainLength,
}: {
  session: Session;
  view: TranscriptView;
  result: Attempt<TranscriptPage>;
  chainLength: number;
}) {
  if (!result.ok) return <ApiErrorAlert error={result.error} title="The transcript could not be loaded" />;
  const page = result.value;
  const hrefs = transcriptHrefs(session.id, view, page);
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
  const earlierSegmentId = session.lineageKind === 'compression' ? session.parentSessionId : null;
  return (
    <>
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
            <MessageItem
              key={message.id}
              message={message}
              highlighted={message.id === page.highlightedId}
              earlierSegmentId={earlierSegmentId}
            />
          ))}
        </ol>
      )}
      {paged && page.messages.length > 3 ? pager : null}
      {chainLength > 1 && !paged ? (
        <p className="transcript-footnote">
          This is one segment of a {chainLength}-segment conversation.{' '}
          <Link href={conversationToggleHref(session.id, view, true)}>Read it whole</Link>
        </p>
      ) : null}
    </>
  );
}

function ConversationTranscript({
  segments,
  view,
  currentId,
}: {
  segments: ConversationSegment[];
  view: TranscriptView;
  currentId: string;
}) {
  return (
    <ol className="conversation-segments" aria-label="Conversation segments">
      {segments.map((segment, index) => {
        const headingId = `segment-${segment.position}`;
        const node = segment.node;
        return (
          <li key={segment.id} aria-labelledby={headingId} data-segment-id={segment.id}>
            <div className="segment-divider">
              <h3 className="segment-divider__title" id={headingId}>
                Segment {segment.position} of {segments.length}
              </h3>
              <Link href={sessionHref(segment.id)} aria-label={`Open segment ${segment.position}: ${segment.id}`}>
                <code>{segment.id}</code>
              </Link>
              {segment.id === currentId ? <Badge tone="accent">This session</Badge> : null}
              {index === 0 ? <Badge>Root</Badge> : null}
              {index === segments.length - 1 && segments.length > 1 ? <Badge tone="info">Tip</Badge> : null}
              <span className="segment-divider__spacer" />
              {node ? (
                <span>
                  {node.endedAt ? `ended · ${humanize(node.endReason ?? 'unknown')}` : 'open'} ·{' '}
                  {plural(node.messageCount, 'message')}
                </span>
              ) : null}
            </div>
            {!segment.messages.ok ? (
              <ApiErrorAlert error={segment.messages.error} title={`Segment ${segment.id} could not be loaded`} />
            ) : segment.messages.value.items.length === 0 ? (
              <p className="transcript-footnote">
                {view.includeHidden ? 'No messages.' : 'No visible messages in this segment.'}
              </p>
            ) : (
              <ol className="transcript" aria-label={`Messages of segment ${segment.position}`}>
                {segment.messages.value.items.map((message) => (
                  <MessageItem
                    key={message.id}
                    message={message}
                    highlighted={false}
                    earlierSegmentId={index > 0 ? segments[index - 1].id : null}
                    retained={segment.retainedIds.has(message.id)}
                  />
                ))}
              </ol>
            )}
            {segment.messages.ok && segment.messages.value.more ? (
              <p className="transcript-footnote">
                Only the first {SEGMENT_MESSAGE_LIMIT} messages of this segment are shown here.{' '}
                <Link href={sessionHref(segment.id)}>Page through the segment</Link>
              </p>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}
