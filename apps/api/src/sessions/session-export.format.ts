import type { ExportFormat, Message, Session, SessionListItem } from '@statehouse/contracts';

/**
 * How exports read as Markdown (docs/api.md, "Exports"): the same lines the JSON-lines export
 * streams, each turned into text as it passes, so a Markdown download streams exactly like the
 * JSON one. Presentation only: what is exported is the service's business.
 */

export const EXPORT_CONTENT_TYPE: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson',
  markdown: 'text/markdown; charset=utf-8',
};
export const EXPORT_EXTENSION: Record<ExportFormat, string> = { jsonl: 'jsonl', markdown: 'md' };

/** A table cell: one line, pipes escaped. */
const cell = (value: unknown) =>
  String(value ?? '')
    .replace(/\r?\n/g, ' ')
    .replace(/\|/g, '\\|');

export const LIST_MARKDOWN_HEADER =
  '| id | title | profile | source | model | started | last activity | messages | tokens | cost (USD) |\n' +
  '| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: |\n';

export function listMarkdownRow(item: SessionListItem): string {
  const usage = item.conversationUsage;
  return `| ${[
    item.id,
    item.title ?? item.preview ?? '',
    item.profile,
    item.source,
    item.model ?? '',
    item.conversationStartedAt,
    item.lastActiveAt,
    usage.messageCount,
    usage.totalTokens,
    usage.estimatedCostUsd.toFixed(4),
  ]
    .map(cell)
    .join(' | ')} |\n`;
}

/** Text of a message's content: text as is, structured parts by their text (other parts named). */
function contentText(content: Message['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const record = (part ?? {}) as Record<string, unknown>;
      if (typeof record.text === 'string') return record.text;
      return `[${typeof record.type === 'string' ? record.type : 'content'}]`;
    })
    .join('\n\n');
}

/** One line of a conversation export (`{type: session|message|edge}`) as Markdown. */
export function conversationMarkdown(line: Record<string, unknown>): string {
  if (line.type === 'session') {
    const session = line.session as Session;
    return (
      `# ${session.title ?? session.id}\n\n` +
      `- id: ${session.id}\n- profile: ${session.profile}\n- source: ${session.source}\n` +
      `- model: ${session.model ?? '—'}\n- started: ${session.startedAt}\n` +
      `- ended: ${session.endedAt ?? '—'}\n- messages: ${session.messageCount}\n\n`
    );
  }
  if (line.type === 'message') {
    const message = line.message as Message;
    const flags = [message.displayKind !== 'visible' ? message.displayKind : null, message.toolName]
      .filter(Boolean)
      .join(', ');
    return `## ${message.role}${flags ? ` (${flags})` : ''} · ${message.timestamp}\n\n${contentText(message.content)}\n\n`;
  }
  if (line.type === 'edge') return `- lineage: ${line.from} → ${line.to} (${line.kind})\n`;
  return '';
}
