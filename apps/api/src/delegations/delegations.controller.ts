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
  type ListDelegationsQuery,
  ListDelegationsQuerySchema,
  type SettleDelegationRequest,
  SettleDelegationRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Action, Answers, IdParam } from '../common/operation.decorator.js';
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
  @Answers(
    'Delegations, newest first; `due=true`: those due to wake their origin, oldest finished first',
    DelegationPageSchema,
  )
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListDelegationsQuerySchema }) query: ListDelegationsQuery) {
    return this.store.delegations.list(ctx, query);
  }

  @Action('claim')
  @Answers('Claim the oldest due wake-ups (of one origin session, if named) under a lease', ClaimedDelegationsSchema)
  claimDue(
    @Ctx() ctx: OperationContext,
    @Body({ schema: ClaimDueDelegationsRequestSchema }) body: ClaimDueDelegationsRequest,
  ) {
    return this.store.delegations.claimDue(ctx, body);
  }

  @Get(':id')
  @Answers('One delegation', DelegationSchema)
  get(@Ctx() ctx: OperationContext, @IdParam() id: string) {
    return this.store.delegations.get(ctx, id);
  }

  @Action(':id/complete')
  @Answers('The sub-agent finished: done, with its result summary (409 conflict once finished)', DelegationSchema)
  complete(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: CompleteDelegationRequestSchema }) body: CompleteDelegationRequest,
  ) {
    return this.store.delegations.complete(ctx, id, body);
  }

  @Action(':id/fail')
  @Answers('The sub-agent failed: failed, with its error (409 conflict once finished)', DelegationSchema)
  fail(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: FailDelegationRequestSchema }) body: FailDelegationRequest,
  ) {
    return this.store.delegations.fail(ctx, id, body);
  }

  @Action(':id/claim')
  @Answers(
    'Claim the wake-up of this delegation under a lease (409 delivery_claimed while another claim is live)',
    DelegationSchema,
  )
  claim(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: ClaimDelegationRequestSchema }) body: ClaimDelegationRequest,
  ) {
    return this.store.delegations.claim(ctx, id, body);
  }

  @Action(':id/delivered')
  @Answers(
    'The claimer woke the origin: delivered, exactly once (409 claim_expired when the claim was taken over)',
    DelegationSchema,
  )
  delivered(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: SettleDelegationRequestSchema }) body: SettleDelegationRequest,
  ) {
    return this.store.delegations.delivered(ctx, id, body);
  }

  @Action(':id/release')
  @Answers('Hand the claimed wake-up back undelivered: due again at once', DelegationSchema)
  release(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: SettleDelegationRequestSchema }) body: SettleDelegationRequest,
  ) {
    return this.store.delegations.release(ctx, id, body);
  }
}
