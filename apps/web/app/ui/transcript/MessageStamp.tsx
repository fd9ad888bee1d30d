import type { Message } from '@statehouse/contracts';
import { messageAnchor } from '@/lib/paths';
import { MessageTime } from './MessageTime';
import './transcript.css';

/** When the message was written (viewer's time zone) and a link to it, named by its place in the session. */
export function MessageStamp({ message }: { message: Message }) {
  const anchor = messageAnchor(message.id);
  return (
    <>
      <span className="message__spacer" />
      <MessageTime iso={message.timestamp} />
      <a className="message__permalink" href={`#${anchor}`} aria-label={`Link to message ${message.ordinal}`}>
        #{message.ordinal}
      </a>
    </>
  );
}
