import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  DeletionReceiptSchema,
  IdSchema,
  LastEventIdSchema,
  ReceiptBookmarkEventSchema,
  ReceiptExpiredEventSchema,
  type ReceiptListQuery,
  ReceiptListQuerySchema,
  ReceiptPageSchema,
  type ReceiptWatchQuery,
  ReceiptWatchQuerySchema,
  type ReclaimRequest,
  ReclaimRequestSchema,
  ReclaimResponseSchema,
  VerifyResponseSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import type { Request, Response } from 'express';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { parseHeader } from '../common/header.js';
import { EventStream } from '../common/operation-facts.decorator.js';
import { lastEventIdOf, SseStreams } from '../common/sse-writer.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('deletion receipts')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/deletion-receipts')
export class ReceiptsController {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(SseStreams) private readonly streams: SseStreams,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Replay receipts after a cursor (410 cursor_expired below the reclaimed floor, 410 epoch_changed for a cursor of another store epoch)',
  })
  @ApiOkResponse({ standardSchema: ReceiptPageSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ReceiptListQuerySchema }) query: ReceiptListQuery) {
    return this.store.receipts.list(ctx, query);
  }

  @Get('watch')
  @ApiOperation({
    summary:
      'Server-sent events: `receipt` as they commit, `bookmark` {highWater, epoch} when idle, `expired` {floor} below the floor; 410 epoch_changed for a cursor of another store epoch',
  })
  @EventStream({
    receipt: {
      description: 'a deletion receipt as it commits',
      data: DeletionReceiptSchema,
      id: 'its sequence (send it back as `Last-Event-ID`)',
    },
    bookmark: {
      description: 'nothing new for `bookmarkSeconds`: the stream has covered everything up to `highWater`',
      data: ReceiptBookmarkEventSchema,
      id: 'highWater',
    },
    expired: {
      description:
        'the cursor is below the reclaimed floor (`cursor_expired`): resync, then watch again; the stream ends',
      data: ReceiptExpiredEventSchema,
    },
  })
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'the last sequence an EventSource saw: the stream resumes after it (a safe integer, else 400)',
  })
  async watch(
    @Ctx() ctx: OperationContext,
    @Query({ schema: ReceiptWatchQuerySchema }) query: ReceiptWatchQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    // EventSource reconnects with Last-Event-ID: resume after what it last saw.
    const lastEventId = parseHeader(LastEventIdSchema, 'Last-Event-ID', lastEventIdOf(request));
    const after = lastEventId !== undefined && lastEventId > query.after ? lastEventId : query.after;
    // A cursor of another store epoch is refused before the stream starts: 410 epoch_changed.
    await this.store.receipts.assertEpoch(query.epoch);
    // No heartbeat: an idle stream sends a bookmark every bookmarkSeconds.
    const stream = this.streams.open(response);
    const events = this.store.receipts.watch(
      ctx,
      { ...query, after },
      { signal: stream.signal, bookmarkMs: query.bookmarkSeconds * 1000 },
    );
    try {
      for await (const event of events) {
        if (event.type === 'receipt') {
          await stream.send({ event: 'receipt', id: event.receipt.sequence, data: event.receipt });
        } else if (event.type === 'bookmark') {
          await stream.send({
            event: 'bookmark',
            id: event.highWater,
            data: { highWater: event.highWater, epoch: event.epoch },
          });
        } else {
          await stream.send({ event: 'expired', data: { floor: event.floor, code: 'cursor_expired' } });
        }
      }
    } finally {
      stream.close();
    }
  }

  @Get('verify')
  @AdminOnly()
  @ApiOperation({ summary: 'Walk the hash chain (admin)' })
  @ApiOkResponse({ standardSchema: VerifyResponseSchema })
  verify(@Ctx() ctx: OperationContext) {
    return this.store.receipts.verify(ctx);
  }

  @Post('reclaim')
  @AdminOnly()
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete receipts through a sequence (admin); `safe` never passes the lowest consumer acknowledgement',
  })
  @ApiOkResponse({ standardSchema: ReclaimResponseSchema })
  reclaim(@Ctx() ctx: OperationContext, @Body({ schema: ReclaimRequestSchema }) body: ReclaimRequest) {
    return this.store.receipts.reclaim(ctx, body);
  }

  @Get(':operationId')
  @ApiOperation({ summary: 'One receipt by operation id' })
  @ApiOkResponse({ standardSchema: DeletionReceiptSchema })
  get(@Ctx() ctx: OperationContext, @Param('operationId', { schema: IdSchema }) operationId: string) {
    return this.store.receipts.get(ctx, operationId);
  }
}
