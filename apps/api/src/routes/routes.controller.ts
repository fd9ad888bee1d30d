import { Body, Controller, Get, HttpCode, Inject, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type ListRoutesQuery,
  ListRoutesQuerySchema,
  type PutRouteRequest,
  PutRouteRequestSchema,
  type ResolveRequest,
  ResolveRequestSchema,
  ResolveResponseSchema,
  RouteCheckSchema,
  RoutePageSchema,
  RouteSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('routes')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/routes')
export class RoutesController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Put()
  @Mutation()
  @ApiOperation({ summary: 'Point a routing key at a session of the same profile' })
  @ApiOkResponse({ standardSchema: RouteSchema })
  set(@Ctx() ctx: OperationContext, @Body({ schema: PutRouteRequestSchema }) body: PutRouteRequest) {
    return this.store.routes.set(ctx, body);
  }

  @Get()
  @ApiOperation({ summary: 'List routes (keyset by profile and key)' })
  @ApiOkResponse({ standardSchema: RoutePageSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListRoutesQuerySchema }) query: ListRoutesQuery) {
    return this.store.routes.list(ctx, query);
  }

  @Post('resolve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Which session does this chat belong to: the live route, else a recoverable row of the peer',
  })
  @ApiOkResponse({ standardSchema: ResolveResponseSchema })
  resolve(@Ctx() ctx: OperationContext, @Body({ schema: ResolveRequestSchema }) body: ResolveRequest) {
    return this.store.routes.resolve(ctx, body);
  }

  @Get('check')
  @AdminOnly()
  @ApiOperation({ summary: 'Consistency check: every route points at an existing tip of its profile (admin)' })
  @ApiOkResponse({ standardSchema: RouteCheckSchema })
  check(@Ctx() ctx: OperationContext) {
    return this.store.routes.check(ctx);
  }
}
