import type { Message, MessageWatchQuery, SessionChangeEvent, SessionWatchQuery } from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { sleepUntilWoken } from '../db/sleep-until-woken.js';
import type { Wakeups } from '../db/wakeup.port.js';
import { MessageRepository } from '../repositories/message.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import type { OperationContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import type { MessageService } from './message.service.js';

/** Rows read per query while a feed catches up. */
const FEED_PAGE = 200;

export type MessageFeedEvent = { type: 'message'; message: Message } | { type: 'bookmark'; highWater: number };
export type SessionFeedEvent =
  | { type: 'session'; change: SessionChangeEvent }
  | { type: 'bookmark'; highWater: number };

export interface FeedOptions {
  signal: AbortSignal;
  /** How often commits this process was not told about (other processes, PostgreSQL) are looked for. */
  pollMs?: number;
  /** An idle stream still says where it stands at least this often. */
  bookmarkMs?: number;
}

/**
 * Live feeds of appends, on message ids (the one ordering key): a session's messages as they
 * commit, and the sessions of a profile as messages arrive in them. Each event names the id to
 * resume after, so a reconnect continues with nothing sent twice and nothing skipped.
 *
 * Why ids are a safe cursor: an append takes its session's row lock before its rows get ids, so
 * within a session ids commit in order, and a high-water mark read before a pass is never
 * overtaken by a smaller id committing later. Across sessions that holds on SQLite (one writer);
 * on PostgreSQL two appends to different sessions may commit out of id order, so the sessions
 * feed can then miss the earlier one's event.
 * TODO(when the sessions feed drives more than a refresh of the whole list on PostgreSQL): hold
 * the cursor below ids still in flight (a snapshot's xmin per row) instead of the read high-water.
 */
export class MessageFeedService {
  private readonly messages = new MessageRepository();

  constructor(
    private readonly db: Db,
    private readonly service: MessageService,
    private readonly wakeups: Wakeups,
  ) {}

  /** A session's messages after `after` (default: from now), as they commit. */
  async *watchSession(
    ctx: OperationContext,
    sessionId: string,
    query: MessageWatchQuery,
    options: FeedOptions,
  ): AsyncGenerator<MessageFeedEvent> {
    // Refused before the stream starts: an unknown or foreign session answers 404.
    await this.service.list(ctx, sessionId, {
      limit: 1,
      includeCompacted: true,
      includeHidden: false,
      includeInactive: false,
      order: 'latest',
    });
    const start = query.after ?? (await this.messages.lastId(this.db, sessionId));
    const service = this.service;
    const messages = this.messages;
    const db = this.db;
    yield* this.follow(start, options, async function* (after) {
      let cursor = after;
      const highWater = await messages.lastId(db, sessionId);
      // Every append wakes every feed: one index probe tells this session's apart.
      if (highWater <= cursor) return cursor;
      for (;;) {
        const page = await service.list(ctx, sessionId, {
          after: cursor,
          limit: FEED_PAGE,
          includeCompacted: true,
          includeHidden: query.includeHidden,
          includeInactive: false,
          order: 'oldest',
        });
        for (const message of page.items) {
          if (message.id > highWater) break;
          yield { type: 'message', message } as const;
          cursor = message.id;
        }
        if (page.nextCursor === null || (page.items.at(-1)?.id ?? 0) >= highWater) break;
      }
      // Rows up to the high-water mark read first are committed and were seen (hidden ones skipped).
      return Math.max(cursor, highWater);
    });
  }

  /** The sessions (of `profile`, else of every profile the caller may read) that get messages, from now or `after`. */
  async *watchSessions(
    ctx: OperationContext,
    query: SessionWatchQuery,
    options: FeedOptions,
  ): AsyncGenerator<SessionFeedEvent> {
    const scope = profileScope(ctx.principal);
    if (query.profile !== undefined && !canAccessProfile(ctx.principal, query.profile))
      throw new NotFoundError('profile');
    const profiles = query.profile !== undefined ? [query.profile] : scope;
    const start = query.after ?? (await this.messages.maxId(this.db));
    const messages = this.messages;
    const db = this.db;
    yield* this.follow(start, options, async function* (after) {
      let cursor = after;
      const highWater = await messages.maxId(db);
      if (highWater <= cursor) return cursor;
      for (;;) {
        const rows = await messages.changedSessions(db, {
          afterId: cursor,
          uptoId: highWater,
          profiles,
          limit: FEED_PAGE,
        });
        for (const change of rows) {
          yield { type: 'session', change } as const;
          cursor = change.lastMessageId;
        }
        if (rows.length < FEED_PAGE) break;
      }
      return Math.max(cursor, highWater);
    });
  }

  /**
   * The loop both feeds share: a pass reads what committed after the cursor, then waits for an
   * append's wake-up (or the poll); a bookmark goes out first and then whenever the stream idles.
   * Subscribed for the stream's whole life: a wake-up landing during a pass runs the next at once.
   */
  private async *follow<E extends MessageFeedEvent | SessionFeedEvent>(
    start: number,
    options: FeedOptions,
    pass: (cursor: number) => AsyncGenerator<E, number>,
  ): AsyncGenerator<E | { type: 'bookmark'; highWater: number }> {
    const pollMs = options.pollMs ?? 1000;
    const bookmarkMs = options.bookmarkMs ?? 15_000;
    let cursor = start;
    let woken = false;
    let wake: (() => void) | undefined;
    let lastSent = 0;
    let caughtUp = false;
    const unsubscribe = this.wakeups.subscribe('messages', () => {
      woken = true;
      wake?.();
    });
    try {
      while (!options.signal.aborted) {
        woken = false;
        const events = pass(cursor);
        let step = await events.next();
        while (!step.done) {
          yield step.value;
          lastSent = Date.now();
          step = await events.next();
        }
        cursor = step.value;
        // A bookmark once caught up (what was stored is sent; from here on it is live) and when
        // idle; not after every pass that only moved past others' rows: resuming from an older id
        // repeats nothing.
        if (!caughtUp || Date.now() - lastSent >= bookmarkMs) {
          yield { type: 'bookmark', highWater: cursor };
          lastSent = Date.now();
          caughtUp = true;
        }
        if (woken) continue;
        await sleepUntilWoken(Math.min(pollMs, bookmarkMs), options.signal, (waker) => {
          wake = waker;
        });
      }
    } finally {
      unsubscribe();
    }
  }
}
