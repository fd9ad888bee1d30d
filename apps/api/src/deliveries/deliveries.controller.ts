import { Body, Controller, Get, Inject, Post, Query, Res } from '@nestjs/common';
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
  type ListDeliveriesQuery,
  ListDeliveriesQuerySchema,
  type SettleDeliveryRequest,
  SettleDeliveryRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Action, Answers, IdParam } from '../common/operation.decorator.js';
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
  @Answers('Obligations, oldest first (owner-fenced)', DeliveryPageSchema)
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListDeliveriesQuerySchema }) query: ListDeliveriesQuery) {
    return this.store.deliveries.list(ctx, query);
  }

  @Action('claim')
  @Answers('Claim the oldest claimable obligations (pending, or under an expired claim)', ClaimedDeliveriesSchema)
  claimNext(
    @Ctx() ctx: OperationContext,
    @Body({ schema: ClaimNextDeliveriesRequestSchema }) body: ClaimNextDeliveriesRequest,
  ) {
    return this.store.deliveries.claimNext(ctx, body);
  }

  @Get(':id')
  @Answers('One obligation', DeliverySchema)
  get(@Ctx() ctx: OperationContext, @IdParam() id: string) {
    return this.store.deliveries.get(ctx, id);
  }

  @Action(':id/claim')
  @Answers('Claim this obligation under a lease (409 delivery_claimed while another claim is live)', DeliverySchema)
  claim(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: ClaimDeliveryRequestSchema }) body: ClaimDeliveryRequest,
  ) {
    return this.store.deliveries.claim(ctx, id, body);
  }

  @Action(':id/delivered')
  @Answers('The claimer delivered it (409 claim_expired when another worker took it over)', DeliverySchema)
  delivered(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: SettleDeliveryRequestSchema }) body: SettleDeliveryRequest,
  ) {
    return this.store.deliveries.delivered(ctx, id, body);
  }

  @Action(':id/failed')
  @Answers(
    'The claimer failed: back to pending while attempts remain, else abandoned (attempts_exhausted)',
    DeliverySchema,
  )
  failed(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: FailDeliveryRequestSchema }) body: FailDeliveryRequest,
  ) {
    return this.store.deliveries.failed(ctx, id, body);
  }
}
