import type { ContentPart, ToolCallView } from '@/lib/message-content';
import './transcript.css';

export function ToolCallFold({ call }: { call: ToolCallView }) {
  return (
    <details className="fold">
      <summary>
        <span className="fold__summary-main">
          Called <code>{call.name}</code>
        </span>
        {call.preview ? <span className="fold__summary-preview">{call.preview}</span> : null}
      </summary>
      <div className="fold__body">
        {call.id ? (
          <p className="fold__meta">
            Call id <code>{call.id}</code>
          </p>
        ) : null}
        <pre className="code-block">{call.arguments || '(no arguments)'}</pre>
      </div>
    </details>
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
              <details key={key} className="fold">
                <summary>
                  <span className="fold__summary-main">Tool result</span>
                  {part.toolCallId ? <span className="fold__summary-preview">{part.toolCallId}</span> : null}
                </summary>
                <div className="fold__body">
                  <MessageContentView parts={part.parts} />
                </div>
              </details>
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
