import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  type OnModuleDestroy,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import {
  DeletionReceiptSchema,
  IdSchema,
  LastEventIdSchema,
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
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { parseHeader } from '../common/header.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('deletion receipts')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/deletion-receipts')
export class ReceiptsController implements OnModuleDestroy {
  /** Open watch streams: shutting down ends them, or the server would wait on them forever. */
  private readonly streams = new Set<AbortController>();

  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  onModuleDestroy(): void {
    for (const stream of this.streams) stream.abort();
  }

  @Get()
  @ApiOperation({ summary: 'Replay receipts after a cursor (410 cursor_expired below the reclaimed floor)' })
  @ApiOkResponse({ standardSchema: ReceiptPageSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ReceiptListQuerySchema }) query: ReceiptListQuery) {
    return this.store.receipts.list(ctx, query);
  }

  @Get('watch')
  @ApiOperation({
    summary:
      'Server-sent events: `receipt` as they commit, `bookmark` {highWater} when idle, `expired` {floor} below the floor',
  })
  @ApiProduces('text/event-stream')
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
    const lastEventId = parseHeader(LastEventIdSchema, 'Last-Event-ID', request.header('last-event-id'));
    const after = lastEventId !== undefined && lastEventId > query.after ? lastEventId : query.after;
    const abort = new AbortController();
    this.streams.add(abort);
    request.on('close', () => abort.abort());
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    const events = this.store.receipts.watch(
      ctx,
      { ...query, after },
      { signal: abort.signal, bookmarkMs: query.bookmarkSeconds * 1000 },
    );
    try {
      for await (const event of events) {
        if (event.type === 'receipt') {
          response.write(`event: receipt\nid: ${event.receipt.sequence}\ndata: ${JSON.stringify(event.receipt)}\n\n`);
        } else if (event.type === 'bookmark') {
          response.write(
            `event: bookmark\nid: ${event.highWater}\ndata: ${JSON.stringify({ highWater: event.highWater })}\n\n`,
          );
        } else {
          response.write(`event: expired\ndata: ${JSON.stringify({ floor: event.floor, code: 'cursor_expired' })}\n\n`);
        }
      }
    } finally {
      this.streams.delete(abort);
      response.end();
    }
  }

  @Get('verify')
  @ApiOperation({ summary: 'Walk the hash chain (admin)' })
  @ApiOkResponse({ standardSchema: VerifyResponseSchema })
  verify(@Ctx() ctx: OperationContext) {
    return this.store.receipts.verify(ctx);
  }

  @Post('reclaim')
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
