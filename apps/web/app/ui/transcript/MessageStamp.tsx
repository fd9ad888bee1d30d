import type { Message } from '@statehouse/contracts';
import { formatDateTime, formatTime } from '@/lib/format';
import { messageAnchor } from '@/lib/paths';
import './transcript.css';

/** When the message was written (UTC, the full date as its tooltip) and a link to it. */
export function MessageStamp({ message }: { message: Message }) {
  const anchor = messageAnchor(message.id);
  return (
    <>
      <span className="message__spacer" />
      <time dateTime={message.timestamp} title={formatDateTime(message.timestamp)}>
        {formatTime(message.timestamp)}
      </time>
      <a className="message__permalink" href={`#${anchor}`} aria-label={`Link to message ${message.id}`}>
        #{message.id}
      </a>
    </>
  );
}
