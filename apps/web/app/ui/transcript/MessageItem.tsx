import type { Message, MessageRole } from '@statehouse/contracts';
import { Badge, cx } from '@/app/ui/common';
import { formatCallCost, formatLatency, formatNumber, humanize } from '@/lib/format';
import { textPreview, toolCallsOf, toParts } from '@/lib/message-content';
import { messageAnchor } from '@/lib/paths';
import { COMPACTED_HINT, CompactionSummary } from './CompactionSummary';
import { DaySeparator } from './DaySeparator';
import { Fold } from './Fold';
import { LongContent } from './LongContent';
import { MarkdownText } from './Markdown';
import { MessageContentView, ToolCallFold } from './MessageContentView';
import { MessageStamp } from './MessageStamp';
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
  /** The time of the message above this one (`null`: the first of the list), for day separators. */
  previousTimestamp: string | null;
}

/**
 * One transcript row, styled by role. Tool traffic is folded (it is long and rarely what a person
 * reads first); hidden, rewound and compacted rows say so, and a compaction summary is its own block.
 */
export function MessageItem({ message, highlighted, earlierSegmentId, retained, previousTimestamp }: MessageItemProps) {
  if (message.displayKind === 'compaction_summary') {
    return (
      <CompactionSummary
        message={message}
        highlighted={highlighted}
        earlierSegmentId={earlierSegmentId}
        previousTimestamp={previousTimestamp}
      />
    );
  }
  const anchor = messageAnchor(message.id);
  const parts = toParts(message.content);
  const toolCalls = toolCallsOf(message);
  const hidden = message.displayKind === 'hidden';
  return (
    <li>
      <DaySeparator iso={message.timestamp} previousIso={previousTimestamp} />
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
          <MessageStamp message={message} />
        </header>

        {message.role === 'tool' ? (
          <Fold
            title={
              <>
                Result{message.toolName ? ' of ' : ''}
                {message.toolName ? <code>{message.toolName}</code> : null}
              </>
            }
            preview={textPreview(message) || 'empty'}
            callId={message.toolCallId}
          >
            {parts.length > 0 ? (
              <MessageContentView
                parts={parts}
                plain
                label={`Result${message.toolName ? ` of ${message.toolName}` : ''} (message ${message.id})`}
              />
            ) : (
              <p className="message__text--empty">No output</p>
            )}
          </Fold>
        ) : parts.length > 0 ? (
          <MessageContentView parts={parts} label={`Message ${message.id}`} />
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
          <Fold title="Reasoning">
            <LongContent
              text={message.reasoning}
              label={`Reasoning (message ${message.id})`}
              fileName={`reasoning-${message.id}`}
              extension="md"
            >
              <MarkdownText text={message.reasoning} />
            </LongContent>
          </Fold>
        ) : null}

        {message.tokenCount !== null ||
        message.finishReason ||
        message.replyLatencyMs !== null ||
        message.costUsd !== null ? (
          <footer className="message__footer">
            {message.replyLatencyMs !== null ? (
              <span data-figure="reply-latency" title="Time since the user message this reply answers">
                replied in {formatLatency(message.replyLatencyMs)}
              </span>
            ) : null}
            {message.costUsd !== null ? (
              <span data-figure="cost" title="Estimated cost of the model call that wrote this reply">
                cost {formatCallCost(message.costUsd)}
              </span>
            ) : null}
            {message.tokenCount !== null ? <span>{formatNumber(message.tokenCount)} tokens</span> : null}
            {message.finishReason ? <span>finish: {humanize(message.finishReason)}</span> : null}
          </footer>
        ) : null}
      </article>
    </li>
  );
}
