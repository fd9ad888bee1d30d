import type { Message, MessageContent } from '@statehouse/contracts';

/**
 * Structured content is stored exactly as the runtime sent it (OpenAI- or Anthropic-style parts,
 * or arbitrary JSON). These views make it readable without losing anything: known shapes become
 * text, images become a labelled placeholder (never fetched), anything else is pretty JSON.
 */
export type ContentPart =
  | { kind: 'text'; text: string }
  | { kind: 'image'; label: string }
  | { kind: 'tool-call'; call: ToolCallView }
  | { kind: 'tool-result'; toolCallId: string | null; parts: ContentPart[] }
  | { kind: 'json'; json: string };

export interface ToolCallView {
  id: string | null;
  name: string;
  /** Arguments as pretty JSON (or the raw text when they are not JSON). */
  arguments: string;
  /** One line of the arguments for the folded summary. */
  preview: string;
}

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = (value: unknown, fallback: string | null = null) => (typeof value === 'string' ? value : fallback);

export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function toToolCallView(call: unknown): ToolCallView {
  if (isRecord(call)) {
    const fn = isRecord(call.function) ? call.function : null;
    const name = stringOr(fn?.name) ?? stringOr(call.name) ?? 'tool call';
    const rawArguments = fn ? fn.arguments : (call.input ?? call.arguments ?? call.args);
    const args = rawArguments === undefined ? '' : prettyJson(rawArguments);
    const compact =
      typeof rawArguments === 'string' ? rawArguments : rawArguments === undefined ? '' : JSON.stringify(rawArguments);
    return { id: stringOr(call.id), name, arguments: args, preview: oneLine(compact ?? '') };
  }
  const text = prettyJson(call);
  return { id: null, name: 'tool call', arguments: text, preview: oneLine(text) };
}

function toPart(part: unknown): ContentPart {
  if (typeof part === 'string') return { kind: 'text', text: part };
  if (!isRecord(part)) return { kind: 'json', json: prettyJson(part) };
  const type = stringOr(part.type);
  if ((type === 'text' || type === 'input_text' || type === 'output_text') && typeof part.text === 'string') {
    return { kind: 'text', text: part.text };
  }
  if (type === 'image_url' || type === 'image' || type === 'input_image') {
    const source = isRecord(part.image_url) ? part.image_url.url : (part.url ?? part.image_url);
    const url = stringOr(source);
    // data: URLs are megabytes of base64; name the media type instead.
    const label = url?.startsWith('data:') ? url.slice(5, url.indexOf(';') > 0 ? url.indexOf(';') : 40) : url;
    return { kind: 'image', label: label ?? 'embedded image' };
  }
  if (type === 'tool_use' || type === 'function_call') return { kind: 'tool-call', call: toToolCallView(part) };
  if (type === 'tool_result') {
    return { kind: 'tool-result', toolCallId: stringOr(part.tool_use_id), parts: toParts(part.content ?? null) };
  }
  return { kind: 'json', json: prettyJson(part) };
}

export function toParts(content: MessageContent | unknown): ContentPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  if (Array.isArray(content)) return content.map(toPart);
  // `{text}` or `{type, text}` is just text; any other key (scores, metadata) is shown as JSON, not dropped.
  if (
    isRecord(content) &&
    typeof content.text === 'string' &&
    Object.keys(content).every((key) => key === 'text' || key === 'type')
  ) {
    return [{ kind: 'text', text: content.text }];
  }
  return [{ kind: 'json', json: prettyJson(content) }];
}

/** Plain text of a message for one-line previews (folded tool results). */
export function textPreview(message: Pick<Message, 'content'>): string {
  const parts = toParts(message.content);
  const text = parts
    .map((part) => (part.kind === 'text' ? part.text : part.kind === 'json' ? part.json : ''))
    .join(' ');
  return oneLine(text);
}

export function toolCallsOf(message: Pick<Message, 'toolCalls'>): ToolCallView[] {
  return (message.toolCalls ?? []).map(toToolCallView);
}
