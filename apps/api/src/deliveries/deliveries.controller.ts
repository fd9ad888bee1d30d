import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type ClaimDeliveryRequest,
  ClaimDeliveryRequestSchema,
  ClaimedDeliveriesSchema,
  type ClaimNextDeliveriesRequest,
  ClaimNextDeliveriesRequestSchema,
  type CreateDeliveryRequest,
  CreateDeliveryRequestSchema,
  DeliveryPageSchema,
  DeliverySchema,
  type FailDeliveryRequest,
  FailDeliveryRequestSchema,
  IdSchema,
  type ListDeliveriesQuery,
  ListDeliveriesQuerySchema,
  type SettleDeliveryRequest,
  SettleDeliveryRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

/** Delivery obligations (docs/domain.md §11; docs/api.md, Deliveries). */
@ApiTags('deliveries')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/deliveries')
export class DeliveriesController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @ApiOperation({
    summary: 'Record an obligation to deliver (idempotent by id: 201 when new, 200 with the existing one)',
  })
  @ApiCreatedResponse({ standardSchema: DeliverySchema, description: 'A new obligation' })
  @ApiOkResponse({ standardSchema: DeliverySchema, description: 'The obligation with this id, recorded before' })
  async create(
    @Ctx() ctx: OperationContext,
    @Body({ schema: CreateDeliveryRequestSchema }) body: CreateDeliveryRequest,
    @Res({ passthrough: true }) response: Response,
  ) {
    const { delivery, created } = await this.store.deliveries.create(ctx, body);
    if (!created) response.status(200);
    return delivery;
  }

  @Get()
  @ApiOperation({ summary: 'Obligations, oldest first (owner-fenced)' })
  @ApiOkResponse({ standardSchema: DeliveryPageSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListDeliveriesQuerySchema }) query: ListDeliveriesQuery) {
    return this.store.deliveries.list(ctx, query);
  }

  @Post('claim')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Claim the oldest claimable obligations (pending, or under an expired claim)' })
  @ApiOkResponse({ standardSchema: ClaimedDeliveriesSchema })
  claimNext(
    @Ctx() ctx: OperationContext,
    @Body({ schema: ClaimNextDeliveriesRequestSchema }) body: ClaimNextDeliveriesRequest,
  ) {
    return this.store.deliveries.claimNext(ctx, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One obligation' })
  @ApiOkResponse({ standardSchema: DeliverySchema })
  get(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.deliveries.get(ctx, id);
  }

  @Post(':id/claim')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Claim this obligation under a lease (409 delivery_claimed while another claim is live)' })
  @ApiOkResponse({ standardSchema: DeliverySchema })
  claim(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: ClaimDeliveryRequestSchema }) body: ClaimDeliveryRequest,
  ) {
    return this.store.deliveries.claim(ctx, id, body);
  }

  @Post(':id/delivered')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'The claimer delivered it (409 claim_expired when another worker took it over)' })
  @ApiOkResponse({ standardSchema: DeliverySchema })
  delivered(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: SettleDeliveryRequestSchema }) body: SettleDeliveryRequest,
  ) {
    return this.store.deliveries.delivered(ctx, id, body);
  }

  @Post(':id/failed')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'The claimer failed: back to pending while attempts remain, else abandoned (attempts_exhausted)',
  })
  @ApiOkResponse({ standardSchema: DeliverySchema })
  failed(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: FailDeliveryRequestSchema }) body: FailDeliveryRequest,
  ) {
    return this.store.deliveries.failed(ctx, id, body);
  }
}
