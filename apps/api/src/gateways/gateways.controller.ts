import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type GatewayHeartbeat,
  GatewayHeartbeatSchema,
  GatewayPageSchema,
  GatewaySchema,
  IdSchema,
  type ListGatewaysQuery,
  ListGatewaysQuerySchema,
  LivenessSweepSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { PROCESS_HOLDER } from '../common/process-holder.js';
import { STATE_STORE } from '../common/tokens.js';

/** Gateway liveness (docs/domain.md §10; docs/api.md, Gateways). */
@ApiTags('gateways')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/gateways')
export class GatewaysController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Put(':id/heartbeat')
  @ApiOperation({
    summary: 'A gateway process says it is alive (registers on the first beat; a later startedAt is a new incarnation)',
  })
  @ApiOkResponse({ standardSchema: GatewaySchema })
  heartbeat(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: GatewayHeartbeatSchema }) body: GatewayHeartbeat,
  ) {
    return this.store.gateways.heartbeat(ctx, id, body);
  }

  @Get()
  @ApiOperation({ summary: 'Registered gateways with last-seen, liveness and open sessions (owner-fenced)' })
  @ApiOkResponse({ standardSchema: GatewayPageSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListGatewaysQuerySchema }) query: ListGatewaysQuery) {
    return this.store.gateways.list(ctx, query);
  }

  @Post('sweep')
  @AdminOnly()
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run the liveness sweep now (admin): end orphaned open rows, expire stuck handoffs (single-flight)',
  })
  @ApiOkResponse({ standardSchema: LivenessSweepSchema })
  sweep(@Ctx() ctx: OperationContext) {
    return this.store.gateways.sweepNow(ctx, PROCESS_HOLDER);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One gateway' })
  @ApiOkResponse({ standardSchema: GatewaySchema })
  get(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.gateways.get(ctx, id);
  }

  @Delete(':id')
  @Mutation()
  @HttpCode(204)
  @ApiOperation({ summary: 'Deregister (a clean shutdown): rows it still owns are orphans for the next sweep' })
  @ApiNoContentResponse()
  deregister(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.gateways.deregister(ctx, id);
  }
}
