import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type FailHandoff,
  FailHandoffSchema,
  IdSchema,
  type RequestHandoff,
  RequestHandoffSchema,
  SessionSchema,
} from '@statehouse/contracts';
import type { OperationContext, Preconditions as PreconditionValues, StateStore } from '@statehouse/state';
import { IfMatchHeader, Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Preconditions } from '../common/preconditions.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('handoff')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions/:id/handoff')
export class HandoffController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @IfMatchHeader(false)
  @HttpCode(200)
  @ApiOperation({ summary: 'Request a handoff to another surface (from none, completed or failed → pending)' })
  @ApiOkResponse({ standardSchema: SessionSchema })
  request(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: RequestHandoffSchema }) body: RequestHandoff,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.handoff.request(ctx, id, body.platform, preconditions);
  }

  @Post('claim')
  @Mutation()
  @IfMatchHeader(false)
  @HttpCode(200)
  @ApiOperation({ summary: 'The receiving surface claims it (pending → running)' })
  @ApiOkResponse({ standardSchema: SessionSchema })
  claim(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.handoff.claim(ctx, id, preconditions);
  }

  @Post('complete')
  @Mutation()
  @IfMatchHeader(false)
  @HttpCode(200)
  @ApiOperation({ summary: 'Done (running → completed): the row becomes recoverable whatever end stamp it carries' })
  @ApiOkResponse({ standardSchema: SessionSchema })
  complete(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.handoff.complete(ctx, id, preconditions);
  }

  @Post('fail')
  @Mutation()
  @IfMatchHeader(false)
  @HttpCode(200)
  @ApiOperation({ summary: 'Give up (pending | running → failed) with the error' })
  @ApiOkResponse({ standardSchema: SessionSchema })
  fail(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: FailHandoffSchema }) body: FailHandoff,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.handoff.fail(ctx, id, body.error, preconditions);
  }
}
