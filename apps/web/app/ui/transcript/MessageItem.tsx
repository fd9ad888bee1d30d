import type { Message, MessageRole } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, cx } from '@/app/ui/common';
import { formatDateTime, formatNumber, formatTime, humanize } from '@/lib/format';
import { textPreview, toolCallsOf, toParts } from '@/lib/message-content';
import { messageAnchor, sessionHref } from '@/lib/paths';
import { MessageContentView, ToolCallFold } from './MessageContentView';
import './transcript.css';

const ROLE_LABELS: Record<MessageRole, string> = {
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
  system: 'System',
  session_meta: 'Session meta',
};

interface MessageItemProps {
  message: Message;
  highlighted: boolean;
  /** The segment this one continues (a compression parent): the summary links back to it. */
  earlierSegmentId?: string | null;
  /** Copied from the previous segment when it was compressed (whole-conversation view). */
  retained?: boolean;
}

const COMPACTED_HINT = 'Archived by compaction: the model no longer sees it, but it is kept, shown and searchable';

/**
 * One transcript row, styled by role. Tool traffic is folded (it is long and rarely what a person
 * reads first); hidden, rewound and compacted rows say so, and a compaction summary is its own block.
 */
export function MessageItem({ message, highlighted, earlierSegmentId, retained }: MessageItemProps) {
  if (message.displayKind === 'compaction_summary') {
    return <CompactionSummary message={message} highlighted={highlighted} earlierSegmentId={earlierSegmentId} />;
  }
  const anchor = messageAnchor(message.id);
  const parts = toParts(message.content);
  const toolCalls = toolCallsOf(message);
  const hidden = message.displayKind === 'hidden';
  return (
    <li>
      <article
        id={anchor}
        className={cx(
          'message',
          `message--${message.role}`,
          hidden && 'message--hidden',
          !message.active && 'message--inactive',
          retained && 'message--retained',
          highlighted && 'message--highlighted',
        )}
        aria-labelledby={`${anchor}-role`}
        aria-current={highlighted ? 'true' : undefined}
        data-message-id={message.id}
        data-role={message.role}
      >
        <header className="message__header">
          <span className="message__role" id={`${anchor}-role`}>
            {ROLE_LABELS[message.role]}
            {highlighted ? <span className="visually-hidden"> (linked message)</span> : null}
          </span>
          {message.toolName ? <code>{message.toolName}</code> : null}
          {hidden ? <Badge tone="warning">Hidden</Badge> : null}
          {message.compacted ? <Badge title={COMPACTED_HINT}>Compacted</Badge> : null}
          {retained ? (
            <Badge tone="info" title="Kept verbatim from the previous segment when it was compressed">
              Carried over
            </Badge>
          ) : null}
          {!message.active ? <Badge tone="danger">Rewound</Badge> : null}
          {highlighted ? <Badge tone="warning">Search hit</Badge> : null}
          <span className="message__spacer" />
          <time dateTime={message.timestamp} title={formatDateTime(message.timestamp)}>
            {formatTime(message.timestamp)}
          </time>
          <a className="message__permalink" href={`#${anchor}`} aria-label={`Link to message ${message.id}`}>
            #{message.id}
          </a>
        </header>

        {message.role === 'tool' ? (
          <details className="fold">
            <summary>
              <span className="fold__summary-main">
                Result{message.toolName ? ' of ' : ''}
                {message.toolName ? <code>{message.toolName}</code> : null}
              </span>
              <span className="fold__summary-preview">{textPreview(message) || 'empty'}</span>
            </summary>
            <div className="fold__body">
              {message.toolCallId ? (
                <p className="fold__meta">
                  Call id <code>{message.toolCallId}</code>
                </p>
              ) : null}
              {parts.length > 0 ? (
                <MessageContentView parts={parts} />
              ) : (
                <p className="message__text--empty">No output</p>
              )}
            </div>
          </details>
        ) : parts.length > 0 ? (
          <MessageContentView parts={parts} />
        ) : toolCalls.length === 0 ? (
          <p className="message__text message__text--empty">No text</p>
        ) : null}

        {toolCalls.length > 0 ? (
          <div className="message__tool-calls">
            {toolCalls.map((call, index) => (
              <ToolCallFold key={call.id ?? index} call={call} />
            ))}
          </div>
        ) : null}

        {message.reasoning ? (
          <details className="fold">
            <summary>
              <span className="fold__summary-main">Reasoning</span>
            </summary>
            <div className="fold__body">
              <p className="message__text">{message.reasoning}</p>
            </div>
          </details>
        ) : null}

        {message.tokenCount !== null || message.finishReason ? (
          <footer className="message__footer">
            {message.tokenCount !== null ? <span>{formatNumber(message.tokenCount)} tokens</span> : null}
            {message.finishReason ? <span>finish: {humanize(message.finishReason)}</span> : null}
          </footer>
        ) : null}
      </article>
    </li>
  );
}

/** A compaction boundary: everything before it was summarised into this message. */
function CompactionSummary({
  message,
  highlighted,
  earlierSegmentId,
}: {
  message: Message;
  highlighted: boolean;
  earlierSegmentId?: string | null;
}) {
  const anchor = messageAnchor(message.id);
  const parts = toParts(message.content);
  return (
    <li>
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
          <span className="message__spacer" />
          <time dateTime={message.timestamp} title={formatDateTime(message.timestamp)}>
            {formatTime(message.timestamp)}
          </time>
          <a className="message__permalink" href={`#${anchor}`} aria-label={`Link to message ${message.id}`}>
            #{message.id}
          </a>
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
