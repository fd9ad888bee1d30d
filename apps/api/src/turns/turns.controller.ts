import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type BeginTurnRequest,
  BeginTurnRequestSchema,
  type RenewTurnRequest,
  RenewTurnRequestSchema,
  TurnSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Action, Answers, IdParam } from '../common/operation.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('turns')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions/:id/turns')
export class TurnsController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @ApiOperation({
    summary:
      'Begin a turn: take the lease and bump the fencing generation (409 session_busy if another holder is live)',
  })
  @ApiCreatedResponse({ standardSchema: TurnSchema })
  begin(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: BeginTurnRequestSchema }) body: BeginTurnRequest,
  ) {
    return this.store.turns.begin(ctx, id, body);
  }

  @Action(':turnId/renew')
  @Answers('Extend the live lease (409 stale_generation once it expired or a newer turn began)', TurnSchema)
  renew(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @IdParam('turnId') turnId: string,
    @Body({ schema: RenewTurnRequestSchema }) body: RenewTurnRequest,
  ) {
    return this.store.turns.renew(ctx, id, turnId, body);
  }

  @Post(':turnId/complete')
  @Mutation()
  @HttpCode(204)
  @ApiOperation({
    summary:
      'Release the lease (409 stale_generation for a turn that is no longer the latest; completing the latest again is a no-op)',
  })
  @ApiNoContentResponse()
  complete(@Ctx() ctx: OperationContext, @IdParam() id: string, @IdParam('turnId') turnId: string) {
    return this.store.turns.complete(ctx, id, turnId);
  }
}
