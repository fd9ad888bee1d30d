import type { Message } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, cx } from '@/app/ui/common';
import { toParts } from '@/lib/message-content';
import { messageAnchor, sessionHref } from '@/lib/paths';
import { DaySeparator } from './DaySeparator';
import { MessageContentView } from './MessageContentView';
import { MessageStamp } from './MessageStamp';
import './transcript.css';

export const COMPACTED_HINT =
  'Archived by compaction: the model no longer sees it, but it is kept, shown and searchable';

/** A compaction boundary: everything before it was summarised into this message. */
export function CompactionSummary({
  message,
  highlighted,
  earlierSegmentId,
  previousTimestamp,
}: {
  message: Message;
  highlighted: boolean;
  earlierSegmentId?: string | null;
  previousTimestamp: string | null;
}) {
  const anchor = messageAnchor(message.id);
  const parts = toParts(message.content);
  return (
    <li>
      <DaySeparator iso={message.timestamp} previousIso={previousTimestamp} />
      <article
        id={anchor}
        className={cx('message', 'message--compaction', highlighted && 'message--highlighted')}
        aria-labelledby={`${anchor}-role`}
        aria-current={highlighted ? 'true' : undefined}
        data-message-id={message.id}
        data-display-kind="compaction_summary"
      >
        <header className="message__header">
          <span className="message__role compaction__label" id={`${anchor}-role`}>
            <span className="compaction__icon" aria-hidden="true">
              ⇣
            </span>
            Compacted — summary of earlier conversation
          </span>
          {message.compacted ? <Badge title={COMPACTED_HINT}>Compacted</Badge> : null}
          <MessageStamp message={message} />
        </header>
        {parts.length > 0 ? (
          <MessageContentView parts={parts} />
        ) : (
          <p className="message__text message__text--empty">Empty summary</p>
        )}
        {earlierSegmentId ? (
          <p className="compaction__earlier">
            The full earlier conversation is kept in{' '}
            <Link href={sessionHref(earlierSegmentId)}>
              <code>{earlierSegmentId}</code>
            </Link>
            .
          </p>
        ) : null}
      </article>
    </li>
  );
}
