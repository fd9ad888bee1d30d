import type { ContentPart, ToolCallView } from '@/lib/message-content';
import { Fold } from './Fold';
import './transcript.css';

export function ToolCallFold({ call }: { call: ToolCallView }) {
  return (
    <Fold
      title={
        <>
          Called <code>{call.name}</code>
        </>
      }
      preview={call.preview}
      callId={call.id}
    >
      <pre className="code-block">{call.arguments || '(no arguments)'}</pre>
    </Fold>
  );
}

/** Renders content parts: text as text, everything else as something a person can read. */
export function MessageContentView({ parts }: { parts: ContentPart[] }) {
  if (parts.length === 1 && parts[0].kind === 'text') return <p className="message__text">{parts[0].text}</p>;
  return (
    <div className="message__parts">
      {parts.map((part, index) => {
        const key = `${part.kind}-${index}`;
        switch (part.kind) {
          case 'text':
            return (
              <p key={key} className="message__text">
                {part.text}
              </p>
            );
          case 'image':
            return (
              <span key={key} className="content-chip">
                <span aria-hidden="true">▣</span> Image: {part.label}
              </span>
            );
          case 'tool-call':
            return <ToolCallFold key={key} call={part.call} />;
          case 'tool-result':
            return (
              <Fold key={key} title="Tool result" preview={part.toolCallId}>
                <MessageContentView parts={part.parts} />
              </Fold>
            );
          case 'json':
            return (
              <pre key={key} className="code-block">
                {part.json}
              </pre>
            );
          default:
            return null;
        }
      })}
    </div>
  );
}
