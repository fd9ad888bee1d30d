import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import {
  type BulkDeleteRequest,
  BulkDeleteRequestSchema,
  BulkDeleteResponseSchema,
  type CreateSessionRequest,
  CreateSessionRequestSchema,
  type DeletePreviewRequest,
  DeletePreviewRequestSchema,
  DeletePreviewSchema,
  type DeleteSessionQuery,
  DeleteSessionQuerySchema,
  DeleteSessionResponseSchema,
  type EndSessionRequest,
  EndSessionRequestSchema,
  IdSchema,
  type ListSessionsQuery,
  ListSessionsQuerySchema,
  type MoveSessionRequest,
  MoveSessionRequestSchema,
  MoveSessionResponseSchema,
  type ReopenSessionRequest,
  ReopenSessionRequestSchema,
  type RewindRequest,
  RewindRequestSchema,
  RewindResponseSchema,
  type SessionFacetsQuery,
  SessionFacetsQuerySchema,
  SessionFacetsSchema,
  SessionListResponseSchema,
  SessionSchema,
  type UpdateSessionRequest,
  UpdateSessionRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, Preconditions as PreconditionValues, StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { ReadOnly } from '../auth/auth-mode.decorator.js';
import { DestructiveHeaders, IfMatchHeader, Mutation, WriterFenceHeaders } from '../common/api-headers.decorator.js';
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
  @ApiOperation({
    summary:
      'List conversations: one row per logical conversation, compression chains at their tip, with usage and duration; pages both ways, bounded total',
  })
  @ApiOkResponse({ standardSchema: SessionListResponseSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListSessionsQuerySchema }) query: ListSessionsQuery) {
    return this.store.sessions.list(ctx, query);
  }

  @Get('facets')
  @ApiOperation({ summary: 'Known sources and models (most used first, bounded) for the list filters' })
  @ApiOkResponse({ standardSchema: SessionFacetsSchema })
  facets(@Ctx() ctx: OperationContext, @Query({ schema: SessionFacetsQuerySchema }) query: SessionFacetsQuery) {
    return this.store.stats.facets(ctx, query);
  }

  @Post('bulk-delete')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete up to 500 selected sessions in one transaction; busy, stale and unknown ones are skipped',
  })
  @ApiOkResponse({ standardSchema: BulkDeleteResponseSchema })
  bulkDelete(@Ctx() ctx: OperationContext, @Body({ schema: BulkDeleteRequestSchema }) body: BulkDeleteRequest) {
    return this.store.deletion.bulkDelete(ctx, body);
  }

  @Post('delete-preview')
  @ReadOnly()
  @HttpCode(200)
  @ApiOperation({ summary: 'What deleting these sessions would remove (delegate cascade, chain members) and orphan' })
  @ApiOkResponse({ standardSchema: DeletePreviewSchema })
  deletePreview(
    @Ctx() ctx: OperationContext,
    @Body({ schema: DeletePreviewRequestSchema }) body: DeletePreviewRequest,
  ) {
    return this.store.deletion.preview(ctx, body);
  }

  @Delete(':id')
  @DestructiveHeaders()
  @ApiOperation({
    summary:
      'Delete a session (delegates cascade; with includeCompressionChain the whole chain); ifEmpty=true discards only an empty one',
  })
  @ApiOkResponse({ standardSchema: DeleteSessionResponseSchema })
  remove(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Query({ schema: DeleteSessionQuerySchema }) query: DeleteSessionQuery,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.deletion.deleteOne(ctx, id, query, preconditions);
  }

  @Get(':id/export')
  @ApiOperation({ summary: 'JSON lines: the session, every message, its lineage edges' })
  @ApiProduces('application/x-ndjson')
  async export(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string, @Res() response: Response) {
    const lines = this.store.sessions.export(ctx, id);
    // Read the first line before committing to 200, so a missing session is still a problem document.
    const first = await lines.next();
    response.status(200).type('application/x-ndjson');
    response.setHeader('Content-Disposition', `attachment; filename="${id}.jsonl"`);
    if (!first.done) response.write(`${JSON.stringify(first.value)}\n`);
    for await (const line of lines) {
      if (response.destroyed) break;
      // A slow reader holds the export back (pages are read as it drains), not the server's memory.
      if (!response.write(`${JSON.stringify(line)}\n`)) {
        await new Promise((resolve) => {
          response.once('drain', resolve);
          response.once('close', resolve);
        });
      }
    }
    response.end();
  }

  @Post(':id/move')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Profile repair (admin): move a session and its chain to another profile; the old profile gets a receipt',
  })
  @ApiOkResponse({ standardSchema: MoveSessionResponseSchema })
  move(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: MoveSessionRequestSchema }) body: MoveSessionRequest,
  ) {
    return this.store.profileAdmin.move(ctx, id, body.profile);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a session (ETag carries its revision)' })
  @ApiOkResponse({ standardSchema: SessionSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  get(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.sessions.get(ctx, id);
  }

  @Post(':id/end')
  @Mutation()
  @IfMatchHeader()
  @WriterFenceHeaders()
  @HttpCode(200)
  @ApiOperation({
    summary: 'End the session with a reason (first end wins; a reset reason bumps the conversation generation)',
  })
  @ApiOkResponse({ standardSchema: SessionSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  end(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: EndSessionRequestSchema }) body: EndSessionRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.sessions.end(ctx, id, body, preconditions);
  }

  @Post(':id/reopen')
  @Mutation()
  @IfMatchHeader()
  @WriterFenceHeaders()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Clear an end stamp: automatic ends freely; a deliberate close only for the transport that delivers the conversation (transportProfile) or a dashboard user (409 reopen_not_permitted); final ends never (409 session_closed)',
  })
  @ApiOkResponse({ standardSchema: SessionSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  reopen(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: ReopenSessionRequestSchema }) body: ReopenSessionRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.sessions.reopen(ctx, id, body, preconditions);
  }

  @Post(':id/rewind')
  @DestructiveHeaders()
  @HttpCode(200)
  @ApiOperation({ summary: 'Rewind: mark a message and every later one inactive (they leave search at once)' })
  @ApiOkResponse({ standardSchema: RewindResponseSchema })
  rewind(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: RewindRequestSchema }) body: RewindRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.messages.rewind(ctx, id, body, preconditions);
  }

  @Patch(':id')
  @Mutation()
  @IfMatchHeader()
  @WriterFenceHeaders()
  @ApiOperation({
    summary:
      'Rename, archive, pin, hide, or re-stamp where the conversation lives (source, transportProfile: fenced during another holder’s turn)',
  })
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
