import type { Session } from '@statehouse/contracts';
import Link from 'next/link';
import { Fragment } from 'react';
import { ApiErrorAlert, ButtonLink, EmptyState, Pagination } from '@/app/ui/common';
import { LiveTranscript } from '@/app/ui/live/LiveTranscript';
import type { Attempt } from '@/lib/attempt';
import { conversationToggleHref, type TranscriptPage, type TranscriptView, transcriptHrefs } from '@/lib/transcript';
import { MessageItem } from './MessageItem';
import { NumberGap } from './NumberGap';
import './transcript.css';

/** One segment's transcript, a page at a time (keyset by message id), with pagers above and below. */
export function SegmentTranscript({
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
      status={
        page.messages.length > 0 ? `Messages #${page.messages[0].ordinal}–#${page.messages.at(-1)?.ordinal}` : undefined
      }
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
          {page.messages.map((message, index) => (
            <Fragment key={message.id}>
              {/* The first page starts at the session's start; a later page's predecessor is not on it. */}
              <NumberGap
                previous={index > 0 ? page.messages[index - 1].ordinal : page.hasEarlier ? null : 0}
                next={message.ordinal}
              />
              <MessageItem
                message={message}
                previousTimestamp={index > 0 ? page.messages[index - 1].timestamp : null}
                highlighted={message.id === page.highlightedId}
                earlierSegmentId={earlierSegmentId}
              />
            </Fragment>
          ))}
        </ol>
      )}
      {/* At the transcript's end, what is appended next arrives live below it. */}
      {page.hasLater ? null : (
        <LiveTranscript
          sessionId={session.id}
          afterId={page.messages.at(-1)?.id ?? view.after ?? 0}
          lastTimestamp={page.messages.at(-1)?.timestamp ?? null}
          lastOrdinal={page.messages.at(-1)?.ordinal ?? (page.hasEarlier ? null : 0)}
          includeHidden={view.includeHidden}
          earlierSegmentId={earlierSegmentId}
        />
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
