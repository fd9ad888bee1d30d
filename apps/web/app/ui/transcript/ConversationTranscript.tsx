import Link from 'next/link';
import { Fragment } from 'react';
import { ApiErrorAlert, Badge } from '@/app/ui/common';
import { type ConversationSegment, SEGMENT_MESSAGE_LIMIT } from '@/lib/conversation';
import { plural } from '@/lib/format';
import { sessionHref } from '@/lib/paths';
import type { TranscriptView } from '@/lib/transcript';
import { MessageItem } from './MessageItem';
import { NumberGap } from './NumberGap';
import './transcript.css';
import { endReasonLabel } from '@/lib/wording';

/** The whole compression chain, root → tip, as one transcript with a divider per segment. */
export function ConversationTranscript({
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
      {segments.map((segment, index) => (
        <li key={segment.id} aria-labelledby={`segment-${segment.position}`} data-segment-id={segment.id}>
          <SegmentDivider segment={segment} index={index} count={segments.length} currentId={currentId} />
          {!segment.messages.ok ? (
            <ApiErrorAlert error={segment.messages.error} title={`Segment ${segment.id} could not be loaded`} />
          ) : segment.messages.value.items.length === 0 ? (
            <p className="transcript-footnote">
              {view.includeHidden ? 'No messages.' : 'No visible messages in this segment.'}
            </p>
          ) : (
            <ol className="transcript" aria-label={`Messages of segment ${segment.position}`}>
              {segment.messages.value.items.map((message, position, items) => (
                <Fragment key={message.id}>
                  <NumberGap previous={position > 0 ? items[position - 1].ordinal : 0} next={message.ordinal} />
                  <MessageItem
                    message={message}
                    previousTimestamp={position > 0 ? items[position - 1].timestamp : null}
                    highlighted={false}
                    earlierSegmentId={index > 0 ? segments[index - 1].id : null}
                    retained={segment.retainedIds.has(message.id)}
                  />
                </Fragment>
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
      ))}
    </ol>
  );
}

function SegmentDivider({
  segment,
  index,
  count,
  currentId,
}: {
  segment: ConversationSegment;
  index: number;
  count: number;
  currentId: string;
}) {
  const node = segment.node;
  return (
    <div className="segment-divider">
      <h3 className="segment-divider__title" id={`segment-${segment.position}`}>
        Segment {segment.position} of {count}
      </h3>
      <Link href={sessionHref(segment.id)} aria-label={`Open segment ${segment.position}: ${segment.id}`}>
        <code>{segment.id}</code>
      </Link>
      {segment.id === currentId ? <Badge tone="accent">This session</Badge> : null}
      {index === 0 ? <Badge>Root</Badge> : null}
      {index === count - 1 && count > 1 ? <Badge tone="info">Tip</Badge> : null}
      <span className="segment-divider__spacer" />
      {node ? (
        <span>
          {node.endedAt ? (
            <span title={node.endReason ?? undefined}>ended · {endReasonLabel(node.endReason ?? 'unknown')}</span>
          ) : (
            'open'
          )}{' '}
          · {plural(node.messageCount, 'message')}
        </span>
      ) : null}
    </div>
  );
}
