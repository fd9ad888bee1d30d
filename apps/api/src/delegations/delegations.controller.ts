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
  type ClaimDelegationRequest,
  ClaimDelegationRequestSchema,
  type ClaimDueDelegationsRequest,
  ClaimDueDelegationsRequestSchema,
  ClaimedDelegationsSchema,
  type CompleteDelegationRequest,
  CompleteDelegationRequestSchema,
  type CreateDelegationRequest,
  CreateDelegationRequestSchema,
  DelegationPageSchema,
  DelegationSchema,
  type FailDelegationRequest,
  FailDelegationRequestSchema,
  IdSchema,
  type ListDelegationsQuery,
  ListDelegationsQuerySchema,
  type SettleDelegationRequest,
  SettleDelegationRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

/** Async delegations and the wake-ups they owe their origin sessions (docs/domain.md §12; docs/api.md). */
@ApiTags('delegations')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/delegations')
export class DelegationsController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @ApiOperation({
    summary: 'Record async sub-agent work (running; idempotent by id: 201 when new, 200 with the existing one)',
  })
  @ApiCreatedResponse({ standardSchema: DelegationSchema, description: 'New work recorded' })
  @ApiOkResponse({ standardSchema: DelegationSchema, description: 'The delegation with this id, recorded before' })
  async create(
    @Ctx() ctx: OperationContext,
    @Body({ schema: CreateDelegationRequestSchema }) body: CreateDelegationRequest,
    @Res({ passthrough: true }) response: Response,
  ) {
    const { delegation, created } = await this.store.delegations.create(ctx, body);
    if (!created) response.status(200);
    return delegation;
  }

  @Get()
  @ApiOperation({
    summary: 'Delegations, newest first; `due=true`: those due to wake their origin, oldest finished first',
  })
  @ApiOkResponse({ standardSchema: DelegationPageSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListDelegationsQuerySchema }) query: ListDelegationsQuery) {
    return this.store.delegations.list(ctx, query);
  }

  @Post('claim')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Claim the oldest due wake-ups (of one origin session, if named) under a lease' })
  @ApiOkResponse({ standardSchema: ClaimedDelegationsSchema })
  claimDue(
    @Ctx() ctx: OperationContext,
    @Body({ schema: ClaimDueDelegationsRequestSchema }) body: ClaimDueDelegationsRequest,
  ) {
    return this.store.delegations.claimDue(ctx, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One delegation' })
  @ApiOkResponse({ standardSchema: DelegationSchema })
  get(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.delegations.get(ctx, id);
  }

  @Post(':id/complete')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'The sub-agent finished: done, with its result summary (409 conflict once finished)' })
  @ApiOkResponse({ standardSchema: DelegationSchema })
  complete(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: CompleteDelegationRequestSchema }) body: CompleteDelegationRequest,
  ) {
    return this.store.delegations.complete(ctx, id, body);
  }

  @Post(':id/fail')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'The sub-agent failed: failed, with its error (409 conflict once finished)' })
  @ApiOkResponse({ standardSchema: DelegationSchema })
  fail(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: FailDelegationRequestSchema }) body: FailDelegationRequest,
  ) {
    return this.store.delegations.fail(ctx, id, body);
  }

  @Post(':id/claim')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Claim the wake-up of this delegation under a lease (409 delivery_claimed while another claim is live)',
  })
  @ApiOkResponse({ standardSchema: DelegationSchema })
  claim(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: ClaimDelegationRequestSchema }) body: ClaimDelegationRequest,
  ) {
    return this.store.delegations.claim(ctx, id, body);
  }

  @Post(':id/delivered')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'The claimer woke the origin: delivered, exactly once (409 claim_expired when the claim was taken over)',
  })
  @ApiOkResponse({ standardSchema: DelegationSchema })
  delivered(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: SettleDelegationRequestSchema }) body: SettleDelegationRequest,
  ) {
    return this.store.delegations.delivered(ctx, id, body);
  }

  @Post(':id/release')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Hand the claimed wake-up back undelivered: due again at once' })
  @ApiOkResponse({ standardSchema: DelegationSchema })
  release(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: SettleDelegationRequestSchema }) body: SettleDelegationRequest,
  ) {
    return this.store.delegations.release(ctx, id, body);
  }
}
