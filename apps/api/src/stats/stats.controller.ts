import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type DeletionStatsQuery,
  DeletionStatsQuerySchema,
  DeletionStatsResponseSchema,
  ReceiptLagSchema,
  type ReplyLatencyQuery,
  ReplyLatencyQuerySchema,
  ReplyLatencyStatsSchema,
  type StatsExtentQuery,
  StatsExtentQuerySchema,
  StatsExtentSchema,
  type StatsSummaryQuery,
  StatsSummaryQuerySchema,
  StatsSummarySchema,
  type UsageQuery,
  UsageQuerySchema,
  UsageResponseSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('stats')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/stats')
export class StatsController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Get('usage')
  @ApiOperation({
    summary:
      'Conversations, sessions, messages, tokens and cost per hour, or calendar day, week or month in a time zone, grouped by source, profile or model (owner-fenced)',
  })
  @ApiOkResponse({ standardSchema: UsageResponseSchema })
  usage(@Ctx() ctx: OperationContext, @Query({ schema: UsageQuerySchema }) query: UsageQuery) {
    return this.store.stats.usageOverTime(ctx, query);
  }

  @Get('deletions')
  @ApiOperation({
    summary:
      'Deletions per hour, or calendar day, week or month in a time zone, from the receipts, grouped by origin or profile (owner-fenced)',
  })
  @ApiOkResponse({ standardSchema: DeletionStatsResponseSchema })
  deletions(@Ctx() ctx: OperationContext, @Query({ schema: DeletionStatsQuerySchema }) query: DeletionStatsQuery) {
    return this.store.stats.deletionsOverTime(ctx, query);
  }

  @Get('summary')
  @ApiOperation({
    summary: 'Overview cards for a period: usage totals, deletions, sessions active and busy now (owner-fenced)',
  })
  @ApiOkResponse({ standardSchema: StatsSummarySchema })
  summary(@Ctx() ctx: OperationContext, @Query({ schema: StatsSummaryQuerySchema }) query: StatsSummaryQuery) {
    return this.store.stats.summary(ctx, query);
  }

  @Get('latency')
  @ApiOperation({
    summary:
      'Reply latency for a period: p50 and p95 of the time assistant replies took to answer, overall, per model and per surface (owner-fenced)',
  })
  @ApiOkResponse({ standardSchema: ReplyLatencyStatsSchema })
  latency(@Ctx() ctx: OperationContext, @Query({ schema: ReplyLatencyQuerySchema }) query: ReplyLatencyQuery) {
    return this.store.stats.replyLatency(ctx, query);
  }

  @Get('extent')
  @ApiOperation({ summary: 'The first and last day with figures: where an "all time" range begins (owner-fenced)' })
  @ApiOkResponse({ standardSchema: StatsExtentSchema })
  extent(@Ctx() ctx: OperationContext, @Query({ schema: StatsExtentQuerySchema }) query: StatsExtentQuery) {
    return this.store.stats.extent(ctx, query);
  }

  @Get('receipt-lag')
  @AdminOnly()
  @ApiOperation({ summary: 'How far each registered receipt consumer trails the deletion feed (admin)' })
  @ApiOkResponse({ standardSchema: ReceiptLagSchema })
  receiptLag(@Ctx() ctx: OperationContext) {
    return this.store.receipts.lag(ctx);
  }
}
