import { problemError, type StatehouseClient } from './client.js';
import { type Problem, StatehouseNetworkError, StatehouseProblemError } from './errors.js';
import { backoffMs, type RetryPolicy, sleep } from './retry.js';
import { EventStreamParser, type ServerSentEvent } from './sse.js';
import type { ItemOf, RequestOf } from './types.js';

/** A deletion receipt (content-free, hash-chained; docs/domain.md §5.3). */
export type DeletionReceipt = ItemOf<'/v1/deletion-receipts'>;

type WatchQuery = NonNullable<NonNullable<RequestOf<'/v1/deletion-receipts/watch', 'get'>['params']>['query']>;

export interface ReceiptWatchOptions extends WatchQuery {
  /** Ends the watch (the iterator returns). */
  signal?: AbortSignal;
  /**
   * Reconnection after a dropped stream or a failed connect: backoff between consecutive failures
   * (an event stream's `retry:` wins when the server sent one), and how many consecutive failures
   * end the watch with the last error (default: unlimited).
   */
  reconnect?: Partial<Pick<RetryPolicy, 'attempts' | 'baseDelayMs' | 'maxDelayMs'>>;
  /** Told before each reconnection: why, and the `Last-Event-ID` it resumes from. */
  onReconnect?: (info: { attempt: number; lastEventId: string | null; error: unknown }) => void;
  /**
   * Milliseconds without a byte (no receipt, bookmark or keepalive) after which the connection is
   * taken for dead and replaced. Default: twice the bookmark interval plus 5 s.
   */
  idleTimeoutMs?: number;
  /** Milliseconds to wait for the stream's headers. Default 30 000. */
  connectTimeoutMs?: number;
}

/** What the watcher yields: each receipt as it commits, and idle bookmarks (`highWater`). */
export type ReceiptEvent =
  | { type: 'receipt'; id: string; receipt: DeletionReceipt }
  | { type: 'bookmark'; id: string; highWater: number };

const WATCH_PATH = '/v1/deletion-receipts/watch';

/**
 * The receipt feed as an async iterable (`for await (const event of client.watchReceipts({after}))`).
 * A dropped connection is reopened with `Last-Event-ID` — the sequence of the last event seen — so
 * no receipt is missed or repeated; a cursor below the reclaimed floor (a `410` answer, or the
 * stream's `expired` event) ends the loop with a thrown `StatehouseProblemError<'cursor_expired'>`
 * carrying `floor`. Other refusals (401, 403, 404, 400) are thrown at once.
 */
export class ReceiptWatcher implements AsyncIterable<ReceiptEvent> {
  /** The id of the last event delivered (the next connection's `Last-Event-ID`). */
  lastEventId: string | null = null;
  /** Connections opened after the first. */
  reconnects = 0;
  private readonly closer = new AbortController();

  constructor(
    private readonly client: StatehouseClient,
    private readonly options: ReceiptWatchOptions = {},
  ) {
    options.signal?.addEventListener('abort', () => this.close(), { once: true });
    if (options.signal?.aborted) this.close();
  }

  /** Stops watching: the open connection is closed and the loop ends. */
  close(): void {
    this.closer.abort();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ReceiptEvent> {
    const {
      signal: _signal,
      reconnect = {},
      onReconnect,
      idleTimeoutMs,
      connectTimeoutMs = 30_000,
      ...query
    } = this.options;
    const policy = {
      attempts: reconnect.attempts ?? Number.POSITIVE_INFINITY,
      baseDelayMs: reconnect.baseDelayMs ?? 250,
      maxDelayMs: reconnect.maxDelayMs ?? 10_000,
      maxRetryAfterMs: Number.POSITIVE_INFINITY,
    };
    const idleMs = idleTimeoutMs ?? (query.bookmarkSeconds ?? 15) * 2000 + 5000;
    let failures = 0;
    let serverRetryMs: number | undefined;
    try {
      for (;;) {
        if (this.closer.signal.aborted) return;
        let error: unknown;
        let wait: number | null = null;
        try {
          const stream = await this.connect(query, connectTimeoutMs);
          failures = 0;
          for await (const event of this.read(stream, idleMs)) {
            if (event.retry !== undefined) serverRetryMs = event.retry;
            const delivered = this.deliver(event, stream.response);
            if (delivered) yield delivered;
          }
          error = new StatehouseNetworkError('the receipt stream ended', `GET ${WATCH_PATH}`, false);
        } catch (caught) {
          if (this.closer.signal.aborted) return;
          if (caught instanceof StatehouseProblemError) {
            if (caught.status !== 429 && caught.status !== 503) throw caught;
            wait = caught.retryAfterSeconds === null ? null : caught.retryAfterSeconds * 1000;
          }
          error = caught;
        }
        failures++;
        if (failures >= policy.attempts) throw error;
        onReconnect?.({ attempt: failures, lastEventId: this.lastEventId, error });
        await sleep(wait ?? serverRetryMs ?? backoffMs(failures, policy), this.closer.signal).catch(() => undefined);
        this.reconnects++;
      }
    } finally {
      this.close();
    }
  }

  private async connect(
    query: WatchQuery,
    timeoutMs: number,
  ): Promise<{ body: ReadableStream<Uint8Array>; response: Response }> {
    const attempt = new AbortController();
    const onClose = () => attempt.abort();
    this.closer.signal.addEventListener('abort', onClose, { once: true });
    const timer = setTimeout(() => attempt.abort(), timeoutMs);
    const headers: Record<string, string> = { Accept: 'text/event-stream', ...(await this.client.authorization()) };
    if (this.lastEventId !== null) headers['Last-Event-ID'] = this.lastEventId;
    try {
      const { response, error } = await this.client.api.GET(WATCH_PATH, {
        params: { query },
        headers,
        parseAs: 'stream',
        signal: attempt.signal,
      });
      if (!response.ok) throw problemError(error, response, `GET ${WATCH_PATH}`);
      if (!response.body)
        throw new StatehouseNetworkError('the receipt stream has no body', `GET ${WATCH_PATH}`, false);
      return { body: response.body, response };
    } catch (error) {
      this.closer.signal.removeEventListener('abort', onClose);
      if (error instanceof StatehouseProblemError || this.closer.signal.aborted) throw error;
      throw new StatehouseNetworkError(
        'the receipt stream could not be opened',
        `GET ${WATCH_PATH}`,
        attempt.signal.aborted,
        {
          cause: error,
        },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** The stream's events; ends when the server closes it, throws when it breaks or goes idle too long. */
  private async *read(stream: { body: ReadableStream<Uint8Array> }, idleMs: number): AsyncGenerator<ServerSentEvent> {
    const reader = stream.body.getReader();
    const decoder = new TextDecoder();
    const parser = new EventStreamParser();
    let idle: ReturnType<typeof setTimeout> | undefined;
    let idleExpired = false;
    const onClose = () => void reader.cancel().catch(() => undefined);
    this.closer.signal.addEventListener('abort', onClose, { once: true });
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        idleExpired = true;
        void reader.cancel().catch(() => undefined);
      }, idleMs);
    };
    try {
      arm();
      for (;;) {
        const { value, done } = await reader.read();
        if (idleExpired) {
          throw new StatehouseNetworkError(`the receipt stream was silent for ${idleMs} ms`, `GET ${WATCH_PATH}`, true);
        }
        if (done) return;
        arm();
        yield* parser.push(decoder.decode(value, { stream: true }));
      }
    } finally {
      clearTimeout(idle);
      this.closer.signal.removeEventListener('abort', onClose);
      reader.releaseLock();
      void stream.body.cancel().catch(() => undefined);
    }
  }

  private deliver(event: ServerSentEvent, response: Response): ReceiptEvent | null {
    if (event.event === 'receipt' && event.id !== undefined) {
      this.lastEventId = event.id;
      return { type: 'receipt', id: event.id, receipt: JSON.parse(event.data) as DeletionReceipt };
    }
    if (event.event === 'bookmark' && event.id !== undefined) {
      this.lastEventId = event.id;
      return { type: 'bookmark', id: event.id, highWater: (JSON.parse(event.data) as { highWater: number }).highWater };
    }
    if (event.event === 'expired') {
      const { floor } = JSON.parse(event.data) as { floor: number };
      const problem = {
        type: 'https://statehouse.dev/problems/cursor-expired',
        title: 'Cursor expired',
        status: 410,
        code: 'cursor_expired',
        detail: `receipts up to ${floor} were reclaimed: resync, then watch again after the floor`,
        floor,
      } as Problem;
      throw new StatehouseProblemError(problem, {
        operation: `GET ${WATCH_PATH}`,
        requestId: response.headers.get('x-request-id'),
      });
    }
    return null;
  }
}
