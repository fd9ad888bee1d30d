import { Body, Controller, Get, Inject, Param, Patch, Post, Query, UseInterceptors } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type CreateSessionRequest,
  CreateSessionRequestSchema,
  IdSchema,
  type ListSessionsQuery,
  ListSessionsQuerySchema,
  SessionListResponseSchema,
  SessionSchema,
  type UpdateSessionRequest,
  UpdateSessionRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, Preconditions as PreconditionValues, StateStore } from '@statehouse/state';
import { IfMatchHeader, Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Preconditions } from '../common/preconditions.decorator.js';
import { RevisionEtagInterceptor } from '../common/revision-etag.interceptor.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('sessions')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions')
export class SessionsController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @ApiOperation({ summary: 'Create a session, optionally with its opening messages (one transaction)' })
  @ApiCreatedResponse({ standardSchema: SessionSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  create(@Ctx() ctx: OperationContext, @Body({ schema: CreateSessionRequestSchema }) body: CreateSessionRequest) {
    return this.store.sessions.create(ctx, body);
  }

  @Get()
  @ApiOperation({ summary: 'List conversations: one row per logical conversation, compression chains at their tip' })
  @ApiOkResponse({ standardSchema: SessionListResponseSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListSessionsQuerySchema }) query: ListSessionsQuery) {
    return this.store.sessions.list(ctx, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a session (ETag carries its revision)' })
  @ApiOkResponse({ standardSchema: SessionSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  get(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.sessions.get(ctx, id);
  }

  @Patch(':id')
  @Mutation()
  @IfMatchHeader()
  @ApiOperation({ summary: 'Rename, archive, pin, hide, or record the surface that resumed the session' })
  @ApiOkResponse({ standardSchema: SessionSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  update(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: UpdateSessionRequestSchema }) body: UpdateSessionRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.sessions.update(ctx, id, body, preconditions);
  }
}
