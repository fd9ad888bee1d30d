import type { MessageContent, MessageInput } from '@statehouse/contracts';

/**
 * Structured content is stored as given (JSON) and also as plain text — the text is what
 * previews, snippets and both search indexes read.
 */
export function contentText(content: MessageContent | undefined): string | null {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 4 || value === null || value === undefined) return;
    if (typeof value === 'string') {
      parts.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record.text === 'string') parts.push(record.text);
      else if (record.content !== undefined) visit(record.content, depth + 1);
    }
  };
  visit(content, 0);
  const text = parts.join('\n');
  return text.length > 0 ? text : null;
}

/** Timestamps outside a sane window (before 2000, or more than a day ahead) become "now". */
const EARLIEST = Date.UTC(2000, 0, 1);
const MAX_AHEAD_MS = 24 * 60 * 60 * 1000;

export function clampTimestamp(input: MessageInput['timestamp'], now: number): number {
  if (input === undefined) return now;
  const value = typeof input === 'number' ? input : Date.parse(input);
  if (!Number.isFinite(value) || value < EARLIEST || value > now + MAX_AHEAD_MS) return now;
  return Math.trunc(value);
}

export const PREVIEW_CHARS = 200;

export function previewOf(text: string | null): string | null {
  if (!text) return null;
  const collapsed = text.replace(/\s+/g, ' ').trim();
  if (!collapsed) return null;
  const codePoints = Array.from(collapsed);
  return codePoints.length > PREVIEW_CHARS ? `${codePoints.slice(0, PREVIEW_CHARS).join('')}…` : collapsed;
}

/** Sources whose transcripts are machine scaffolding: kept out of the substring index (docs/domain.md §7). */
export const SUBSTRING_EXCLUDED_SOURCES = new Set(['cron', 'subagent']);

/** Whether a session's messages go to the substring index (tool rows are excluded per message). */
export function substringEligible(session: { source: string; created_source: string; delegated: number }): boolean {
  return (
    !SUBSTRING_EXCLUDED_SOURCES.has(session.source) &&
    !SUBSTRING_EXCLUDED_SOURCES.has(session.created_source) &&
    Number(session.delegated) === 0
  );
}

/** Whether one message of such a session goes to the substring index: never tool output (docs/domain.md §7). */
export function substringIndexed(eligibleSession: boolean, role: string): 0 | 1 {
  return eligibleSession && role !== 'tool' ? 1 : 0;
}

/** Tool calls carried as content parts (`{type: 'tool_use'}`, Anthropic style) count as tool calls too. */
export function toolUseParts(content: MessageInput['content']): number {
  if (!Array.isArray(content)) return 0;
  return content.filter(
    (part) => typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'tool_use',
  ).length;
}

const CALL_VALUE_CHARS = 200;

/**
 * Tool calls as people read them: `web_search(query: rust async)` — one line per call, whatever
 * the wire shape (OpenAI `{function: {name, arguments}}` with JSON-text arguments, Anthropic-style
 * `{name, input}`). Null when there are no calls or they cannot be read.
 */
export function readableToolCalls(toolCalls: string | null): string | null {
  if (!toolCalls) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(toolCalls);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  const lines = parsed.map((call) => {
    const record = (call && typeof call === 'object' ? call : {}) as Record<string, unknown>;
    const fn = (record.function && typeof record.function === 'object' ? record.function : record) as Record<
      string,
      unknown
    >;
    const name = typeof fn.name === 'string' ? fn.name : 'tool';
    let args: unknown = fn.arguments ?? fn.input ?? record.input ?? {};
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch {
        // arguments that are not JSON are shown as they are
      }
    }
    const shown =
      args && typeof args === 'object' && !Array.isArray(args)
        ? Object.entries(args as Record<string, unknown>)
            .map(([key, value]) => `${key}: ${readableValue(value)}`)
            .join(', ')
        : readableValue(args);
    return `${name}(${shown})`;
  });
  return lines.join('\n');
}

function readableValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const codePoints = Array.from(text ?? '');
  return codePoints.length > CALL_VALUE_CHARS
    ? `${codePoints.slice(0, CALL_VALUE_CHARS).join('')}…`
    : codePoints.join('');
}
