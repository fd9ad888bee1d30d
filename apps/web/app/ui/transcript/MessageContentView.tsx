import type { ContentPart, ToolCallView } from '@/lib/message-content';
import { Fold } from './Fold';
import { JsonViewer } from './JsonViewer';
import { LongContent } from './LongContent';
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
      {call.arguments ? (
        <JsonViewer text={call.arguments} label={`Arguments of ${call.name}`} fileName={`arguments-${call.name}`} />
      ) : (
        <pre className="code-block">(no arguments)</pre>
      )}
    </Fold>
  );
}

/**
 * Text as Markdown, or — tool output (`plain`) — verbatim (a JSON document as a tree); long text
 * scrolls in its own box with a download.
 */
function TextPart({ text, plain, label }: { text: string; plain?: boolean; label: string }) {
  if (plain) return <JsonViewer text={text} label={label} fileName={fileNameOf(label)} />;
  return (
    <LongContent text={text} label={label} fileName={fileNameOf(label)} extension="md">
      <MarkdownText text={text} />
    </LongContent>
  );
}

const fileNameOf = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'content';

/**
 * Renders content parts: text as text, everything else as something a person can read. `label`
 * names what it is (a tool's result, a message) for the boxes long or structured content gets.
 */
export function MessageContentView({
  parts,
  plain,
  label = 'Message content',
}: {
  parts: ContentPart[];
  plain?: boolean;
  label?: string;
}) {
  if (parts.length === 1 && parts[0].kind === 'text')
    return <TextPart text={parts[0].text} plain={plain} label={label} />;
  return (
    <div className="message__parts">
      {parts.map((part, index) => {
        const key = `${part.kind}-${index}`;
        switch (part.kind) {
          case 'text':
            return <TextPart key={key} text={part.text} plain={plain} label={`${label}, part ${index + 1}`} />;
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
                <MessageContentView parts={part.parts} plain label={`Tool result ${part.toolCallId ?? index + 1}`} />
              </Fold>
            );
          case 'json':
            return (
              <JsonViewer
                key={key}
                text={part.json}
                label={`${label}, part ${index + 1}`}
                fileName={fileNameOf(`${label} part ${index + 1}`)}
              />
            );
          default:
            return null;
        }
      })}
    </div>
  );
}
