import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Request, Response } from 'express';

/** One server-sent event: `event:` (unset: a `message`), `id:`, and `data:` as one line of JSON. */
export interface SseEvent {
  event?: string;
  /** An EventSource sends the last id it saw back as `Last-Event-ID` when it reconnects. */
  id?: string | number;
  data: unknown;
}

export interface SseOptions {
  /** A `: keepalive` comment every this many ms (proxies drop silent connections). Unset: none. */
  heartbeatMs?: number;
}

/**
 * The `Last-Event-ID` a reconnecting EventSource sent, unparsed. Read (and refused with a 400)
 * before the stream opens: once it is open the status is 200 for good.
 */
export function lastEventIdOf(request: Request): string | undefined {
  return request.header('last-event-id');
}

/** `event:` and `id:` are one line each: a line break would start another field. */
function field(name: string, value: string | number): string {
  const text = String(value);
  if (/[\r\n]/.test(text)) throw new Error(`SSE ${name} must not contain a line break`);
  return `${name}: ${text}\n`;
}

/**
 * A `text/event-stream` answer. `send` respects backpressure: when the socket's buffer is full
 * it resolves only once the buffer drained (or the client left), so a producer that awaits each
 * send is held back by a slow reader instead of filling the server's memory. `signal` aborts
 * when the client disconnects or the stream is closed; hand it to whatever produces the events.
 */
export class SseWriter {
  private readonly abort = new AbortController();
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private draining = false;

  constructor(
    private readonly response: Response,
    options: SseOptions = {},
    private readonly onClose: (writer: SseWriter) => void = () => {},
  ) {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    // 'close' on the response: the client went away, or the answer ended.
    response.once('close', () => this.close());
    if (options.heartbeatMs !== undefined && options.heartbeatMs > 0) {
      this.heartbeat = setInterval(() => {
        // A full buffer already shows the connection is in use; a comment would only add to it.
        if (!this.draining) this.response.write(': keepalive\n\n');
      }, options.heartbeatMs);
      this.heartbeat.unref();
    }
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  /** Writes one event, waiting while the socket drains; false once the stream is closed (the client left, or close()). */
  async send(event: SseEvent): Promise<boolean> {
    if (this.closed) return false;
    const frame = `${event.event !== undefined ? field('event', event.event) : ''}${
      event.id !== undefined ? field('id', event.id) : ''
    }data: ${JSON.stringify(event.data) ?? 'null'}\n\n`;
    if (!this.response.write(frame)) await this.drained();
    return !this.closed;
  }

  /** Ends the stream (idempotent): the heartbeat stops, `signal` aborts, the response ends. */
  close(): void {
    if (this.closed) return;
    clearInterval(this.heartbeat);
    this.abort.abort();
    this.onClose(this);
    if (!this.response.writableEnded) this.response.end();
  }

  private drained(): Promise<void> {
    this.draining = true;
    return new Promise((resolve) => {
      const done = () => {
        this.response.off('drain', done);
        this.abort.signal.removeEventListener('abort', done);
        this.draining = false;
        resolve();
      };
      this.response.once('drain', done);
      this.abort.signal.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * Opens event streams and ends every one still open when the application shuts down (else the
 * server would wait on them forever).
 */
@Injectable()
export class SseStreams implements OnModuleDestroy {
  private readonly streams = new Set<SseWriter>();

  open(response: Response, options: SseOptions = {}): SseWriter {
    const writer = new SseWriter(response, options, (closed) => this.streams.delete(closed));
    this.streams.add(writer);
    return writer;
  }

  onModuleDestroy(): void {
    for (const stream of this.streams) stream.close();
  }
}
