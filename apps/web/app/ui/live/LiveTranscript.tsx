'use client';

import type { Message } from '@statehouse/contracts';
import { Fragment, useState } from 'react';
import { MessageItem } from '@/app/ui/transcript/MessageItem';
import { NumberGap } from '@/app/ui/transcript/NumberGap';
import { LiveStatus } from './LiveStatus';
import { useFeed } from './use-feed';
import './live.css';

interface LiveTranscriptProps {
  sessionId: string;
  /** The last message id the page shows: new ones are appended after it. */
  afterId: number;
  /** The time of the last message shown (day separators continue from it). */
  lastTimestamp: string | null;
  /** The number of the last message shown (0: none since the start; null: unknown), for number gaps. */
  lastOrdinal: number | null;
  includeHidden: boolean;
  earlierSegmentId: string | null;
}

const messageId = (message: Message) => message.id;

/**
 * The tail of an open transcript, kept current: messages appended after the rendered page arrive
 * over the session's live feed and are added below it, in id order, without a reload.
 */
export function LiveTranscript({
  sessionId,
  afterId,
  lastTimestamp,
  lastOrdinal,
  includeHidden,
  earlierSegmentId,
}: LiveTranscriptProps) {
  const [messages, setMessages] = useState<Message[]>([]);
  const href = `/live/sessions/${encodeURIComponent(sessionId)}${includeHidden ? '?includeHidden=true' : ''}`;
  const feed = useFeed<Message>({
    href,
    after: afterId,
    event: 'message',
    idOf: messageId,
    onRows: (rows) => setMessages((current) => [...current, ...rows]),
  });
  const count = messages.length;
  return (
    <div className="live-transcript">
      {count > 0 ? (
        <ol className="transcript" aria-label="New messages" data-testid="live-messages">
          {messages.map((message, index) => (
            <Fragment key={message.id}>
              <NumberGap previous={index > 0 ? messages[index - 1].ordinal : lastOrdinal} next={message.ordinal} />
              <MessageItem
                message={message}
                previousTimestamp={index > 0 ? messages[index - 1].timestamp : lastTimestamp}
                highlighted={false}
                earlierSegmentId={earlierSegmentId}
              />
            </Fragment>
          ))}
        </ol>
      ) : null}
      <LiveStatus
        status={feed.status}
        paused={feed.paused}
        onToggle={feed.togglePaused}
        news={count > 0 ? `${count} new ${count === 1 ? 'message' : 'messages'}` : null}
        detail={feed.detail}
        subject="transcript"
        testId="live-transcript"
      />
    </div>
  );
}
