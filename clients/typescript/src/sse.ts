/** One server-sent event (the HTML standard's event stream format). */
export interface ServerSentEvent {
  /** `event:` field; `message` when absent. */
  event: string;
  /** `data:` lines joined with newlines. */
  data: string;
  /** `id:` field, when the event set one. */
  id: string | undefined;
  /** `retry:` field (reconnection time in ms), when the event set one. */
  retry: number | undefined;
}

/**
 * Parses an event stream chunk by chunk: feed it decoded text, get the complete events back.
 * Comment lines (`: keepalive`) and unknown fields are ignored; CR, LF and CRLF all end lines.
 */
export class EventStreamParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private retry: number | undefined;

  push(text: string): ServerSentEvent[] {
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone CR at the end may be the first half of a CRLF: wait for the next chunk.
      if (!match || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): ServerSentEvent | null {
    if (line === '') {
      if (this.data.length === 0 && this.event === '' && this.id === undefined) return null;
      const event: ServerSentEvent = {
        event: this.event || 'message',
        data: this.data.join('\n'),
        id: this.id,
        retry: this.retry,
      };
      this.data = [];
      this.event = '';
      this.id = undefined;
      this.retry = undefined;
      return event;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }
}
