import type { ContentPart, ToolCallView } from '@/lib/message-content';
import { Fold } from './Fold';
import { MarkdownText } from './Markdown';
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

/** Text as Markdown, or — tool output (`plain`) — verbatim in monospace. */
function TextPart({ text, plain }: { text: string; plain?: boolean }) {
  return plain ? <pre className="code-block message__text">{text}</pre> : <MarkdownText text={text} />;
}

/** Renders content parts: text as text, everything else as something a person can read. */
export function MessageContentView({ parts, plain }: { parts: ContentPart[]; plain?: boolean }) {
  if (parts.length === 1 && parts[0].kind === 'text') return <TextPart text={parts[0].text} plain={plain} />;
  return (
    <div className="message__parts">
      {parts.map((part, index) => {
        const key = `${part.kind}-${index}`;
        switch (part.kind) {
          case 'text':
            return <TextPart key={key} text={part.text} plain={plain} />;
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
                <MessageContentView parts={part.parts} plain />
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
