import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  FeedBookmarkEventSchema,
  FeedLastEventIdSchema,
  IdSchema,
  MessageSchema,
  type MessageWatchQuery,
  MessageWatchQuerySchema,
  SessionChangeEventSchema,
  type SessionWatchQuery,
  SessionWatchQuerySchema,
} from '@statehouse/contracts';
import type { MessageFeedEvent, OperationContext, SessionFeedEvent, StateStore } from '@statehouse/state';
import type { Request, Response } from 'express';
import { Ctx } from '../common/context.decorator.js';
import { parseHeader } from '../common/header.js';
import { EventStream } from '../common/operation-facts.decorator.js';
import { lastEventIdOf, SseStreams, type SseWriter } from '../common/sse-writer.js';
import { STATE_STORE } from '../common/tokens.js';

const BOOKMARK_EVENT = {
  description:
    'once caught up with what was stored, then whenever nothing is new for `bookmarkSeconds`: everything up to `highWater` was covered',
  data: FeedBookmarkEventSchema,
  id: 'highWater',
};

const LAST_EVENT_ID = {
  name: 'Last-Event-ID',
  required: false,
  description:
    'the last message id an EventSource saw: the stream resumes after it, over `after` (a safe integer, else 400)',
};

/**
 * Live feeds of appends as server-sent events: a session's messages, and the sessions of a profile
 * as messages arrive. Registered before the sessions controller: `/v1/sessions/watch` must not be
 * read as the session `watch`.
 */
@ApiTags('live feeds')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions')
export class FeedsController {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(SseStreams) private readonly streams: SseStreams,
  ) {}

  @Get('watch')
  @ApiOperation({
    summary:
      'Server-sent events: `session` when a session (of `profile`, else of every readable profile) gets messages, `bookmark` {highWater} when idle',
  })
  @EventStream({
    session: {
      description: 'a session got messages: what its list row shows now',
      data: SessionChangeEventSchema,
      id: 'its newest message id (send it back as `Last-Event-ID`)',
    },
    bookmark: BOOKMARK_EVENT,
  })
  @ApiHeader(LAST_EVENT_ID)
  async watchSessions(
    @Ctx() ctx: OperationContext,
    @Query({ schema: SessionWatchQuerySchema }) query: SessionWatchQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const after = resumeAfter(request, query.after);
    await this.stream(request, response, (signal) =>
      this.store.feeds.watchSessions(ctx, { ...query, after }, feedOptions(signal, query.bookmarkSeconds)),
    );
  }

  @Get(':id/messages/watch')
  @ApiOperation({
    summary:
      "Server-sent events: `message` as a session's messages commit (in id order), `bookmark` {highWater} when idle",
  })
  @EventStream({
    message: {
      description: 'a message as it commits',
      data: MessageSchema,
      id: 'its id (send it back as `Last-Event-ID`)',
    },
    bookmark: BOOKMARK_EVENT,
  })
  @ApiHeader(LAST_EVENT_ID)
  async watchMessages(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Query({ schema: MessageWatchQuerySchema }) query: MessageWatchQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const after = resumeAfter(request, query.after);
    await this.stream(request, response, (signal) =>
      this.store.feeds.watchSession(ctx, id, { ...query, after }, feedOptions(signal, query.bookmarkSeconds)),
    );
  }

  /**
   * Runs a feed onto the response. Its first event is read before the headers go out, so a refusal
   * (an unknown session, a foreign profile) is still an ordinary problem answer.
   */
  private async stream(
    request: Request,
    response: Response,
    open: (signal: AbortSignal) => AsyncGenerator<MessageFeedEvent | SessionFeedEvent>,
  ): Promise<void> {
    // The feed stops when the client leaves before the stream opens, or when the stream closes.
    const abort = new AbortController();
    request.on('close', () => abort.abort());
    const events = open(abort.signal);
    const first = await events.next();
    const writer = this.streams.open(response);
    writer.signal.addEventListener('abort', () => abort.abort(), { once: true });
    try {
      if (!first.done) await sendFeedEvent(writer, first.value);
      // Each send waits while a slow reader drains, so a feed never runs ahead of its client.
      for await (const event of events) if (!(await sendFeedEvent(writer, event))) break;
    } finally {
      abort.abort();
      writer.close();
    }
  }
}

/** EventSource reconnects with Last-Event-ID: resume after what it last saw, whatever the URL says. */
function resumeAfter(request: Request, after: number | undefined): number | undefined {
  return parseHeader(FeedLastEventIdSchema, 'Last-Event-ID', lastEventIdOf(request)) ?? after;
}

function feedOptions(signal: AbortSignal, bookmarkSeconds: number) {
  return { signal, bookmarkMs: bookmarkSeconds * 1000 };
}

function sendFeedEvent(writer: SseWriter, event: MessageFeedEvent | SessionFeedEvent): Promise<boolean> {
  if (event.type === 'message') return writer.send({ event: 'message', id: event.message.id, data: event.message });
  if (event.type === 'session') {
    return writer.send({ event: 'session', id: event.change.lastMessageId, data: event.change });
  }
  return writer.send({ event: 'bookmark', id: event.highWater, data: { highWater: event.highWater } });
}
