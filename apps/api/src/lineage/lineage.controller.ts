import { Body, Controller, Get, Inject, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type BranchRequest,
  BranchRequestSchema,
  ChildResponseSchema,
  type CompressRequest,
  CompressRequestSchema,
  IdSchema,
  LineageResponseSchema,
  type ResetRequest,
  ResetRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, Preconditions as PreconditionValues, StateStore } from '@statehouse/state';
import { DestructiveHeaders } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Preconditions } from '../common/preconditions.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('lineage')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions/:id')
export class LineageController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post('compress')
  @DestructiveHeaders()
  @ApiOperation({
    summary: 'Compress: continue the conversation in a child holding the summary and the kept tail (atomic)',
  })
  @ApiCreatedResponse({ standardSchema: ChildResponseSchema })
  compress(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: CompressRequestSchema }) body: CompressRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.lineage.compress(ctx, id, body, preconditions);
  }

  @Post('branch')
  @DestructiveHeaders()
  @ApiOperation({ summary: 'Branch: a copy of the transcript up to a message, diverging from here' })
  @ApiCreatedResponse({ standardSchema: ChildResponseSchema })
  branch(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: BranchRequestSchema }) body: BranchRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.lineage.branch(ctx, id, body, preconditions);
  }

  @Post('reset')
  @DestructiveHeaders()
  @ApiOperation({
    summary: 'Reset: end with a reset reason (conversation generation +1) and start a new session on the same key',
  })
  @ApiCreatedResponse({ standardSchema: ChildResponseSchema })
  reset(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: ResetRequestSchema }) body: ResetRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.lineage.reset(ctx, id, body, preconditions);
  }

  @Get('lineage')
  @ApiOperation({ summary: 'Lineage: the compression chain through this session and the whole tree of all edge kinds' })
  @ApiOkResponse({ standardSchema: LineageResponseSchema })
  lineage(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.lineage.lineageOf(ctx, id);
  }
}
