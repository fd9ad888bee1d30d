import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from '../shared/logger.js';
import type { Executor } from './database.js';
import { LocalWakeups } from './local-wakeups.js';
import type { WakeupTopic } from './wakeup.port.js';

export const WAKEUP_CHANNEL = 'statehouse_wakeups';
const MAX_BACKOFF_MS = 5000;

/**
 * PostgreSQL wake-ups: writers `pg_notify` inside their transaction (the server delivers at commit,
 * never on rollback); each process holds one dedicated LISTEN connection, opened when the first
 * listener subscribes. A lost connection is retried with backoff; meanwhile listeners fall back to
 * their own polling, and on reconnect every topic is woken once (notifications sent while away
 * are gone).
 */
export class PostgresWakeups extends LocalWakeups {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private backoffMs = 100;
  private connected = false;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {
    super();
  }

  override get live(): boolean {
    return this.connected;
  }

  override async announceIn(db: Executor, topic: WakeupTopic): Promise<void> {
    await sql`select pg_notify(${WAKEUP_CHANNEL}, ${topic})`.execute(db);
  }

  /** Resolves once the LISTEN connection is up (tests; subscribe() starts it without waiting). */
  async ready(): Promise<void> {
    this.start();
    await this.connecting;
  }

  protected override onSubscribersChanged(): void {
    if (this.subscribers() > 0) this.start();
  }

  private start(): void {
    if (this.closed || this.client || this.connecting || this.retryTimer) return;
    this.connecting = this.connect().finally(() => {
      this.connecting = undefined;
    });
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 });
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.connected = false;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (!this.closed) {
        this.logger.warn('wake-up connection lost; watchers poll until it is back', { error: String(error ?? '') });
        this.scheduleRetry();
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`listen ${WAKEUP_CHANNEL}`);
    } catch {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      if (!this.closed) this.scheduleRetry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    client.on('notification', (message) => {
      if (message.channel === WAKEUP_CHANNEL && message.payload) this.emitter.emit(message.payload);
    });
    this.client = client;
    const wasRetry = this.backoffMs > 100;
    this.connected = true;
    this.backoffMs = 100;
    // Whatever was announced while no connection listened is lost: everyone looks once.
    if (wasRetry) for (const topic of this.topics()) this.emitter.emit(topic);
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.start();
    }, delay);
    this.retryTimer.unref();
  }

  /** Drops the LISTEN connection as a network failure would (tests of the reconnect path). */
  simulateConnectionLoss(): void {
    this.client?.emit('error', new Error('simulated connection loss'));
  }

  override async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    this.connected = false;
    await client?.end().catch(() => undefined);
    await super.close();
  }
}
