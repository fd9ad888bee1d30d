import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
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
  type ListSessionsQuery,
  ListSessionsQuerySchema,
  ModelUsageListSchema,
  type MoveSessionRequest,
  MoveSessionRequestSchema,
  MoveSessionResponseSchema,
  type RecordUsageRequest,
  RecordUsageRequestSchema,
  type ReopenSessionRequest,
  ReopenSessionRequestSchema,
  type ResolveIdQuery,
  ResolveIdQuerySchema,
  ResolveIdSchema,
  type RewindRequest,
  RewindRequestSchema,
  RewindResponseSchema,
  type SessionCountQuery,
  SessionCountQuerySchema,
  SessionCountSchema,
  type SessionExportQuery,
  SessionExportQuerySchema,
  type SessionFacetsQuery,
  SessionFacetsQuerySchema,
  SessionFacetsSchema,
  type SessionListExportQuery,
  SessionListExportQuerySchema,
  SessionListResponseSchema,
  SessionSchema,
  type TitleLineageQuery,
  TitleLineageQuerySchema,
  TitleLineageSchema,
  type UpdateSessionRequest,
  UpdateSessionRequestSchema,
  type WorkspacesQuery,
  WorkspacesQuerySchema,
  WorkspacesSchema,
} from '@statehouse/contracts';
import type { OperationContext, Preconditions as PreconditionValues, StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { AdminOnly, ReadOnly } from '../auth/auth-mode.decorator.js';
import { DestructiveHeaders, Mutation, WriterFenceHeaders } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Action, Answers, IdParam, RevisionChecked } from '../common/operation.decorator.js';
import { Preconditions } from '../common/preconditions.decorator.js';
import { RevisionEtagInterceptor } from '../common/revision-etag.interceptor.js';
import { STATE_STORE } from '../common/tokens.js';
import {
  conversationMarkdown,
  EXPORT_CONTENT_TYPE,
  EXPORT_EXTENSION,
  LIST_MARKDOWN_HEADER,
  listMarkdownRow,
} from './session-export.format.js';

@ApiTags('sessions')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions')
export class SessionsController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @ApiOperation({
    summary:
      'Create a session, optionally with its opening messages (one transaction); with claimRoute, join the open session the key already routes to (200); ifExists=fill: an existing one keeps its fields and gets its empty ones filled (200)',
  })
  @ApiCreatedResponse({ standardSchema: SessionSchema })
  @ApiOkResponse({
    standardSchema: SessionSchema,
    description: 'claimRoute: the open session the key routes to; ifExists=fill: the session existed',
  })
  @UseInterceptors(RevisionEtagInterceptor)
  async create(
    @Ctx() ctx: OperationContext,
    @Body({ schema: CreateSessionRequestSchema }) body: CreateSessionRequest,
    @Res({ passthrough: true }) response: Response,
  ) {
    const { claimRoute, ...request } = body;
    const { session, created } =
      claimRoute && request.sessionKey !== undefined
        ? await this.store.sessions.createForKey(ctx, { ...request, sessionKey: request.sessionKey })
        : await this.store.sessions.createOrFill(ctx, request);
    if (!created) response.status(200);
    return session;
  }

  @Get()
  @Answers(
    'List conversations: one row per logical conversation, compression chains at their tip, with usage and duration; pages both ways, bounded total',
    SessionListResponseSchema,
  )
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListSessionsQuerySchema }) query: ListSessionsQuery) {
    return this.store.sessions.list(ctx, query);
  }

  @Get('export')
  @ApiOperation({
    summary:
      'Every conversation the list filters match, in the list order, as JSON lines (one list row per line) or a Markdown table, streamed',
  })
  @ApiProduces('application/x-ndjson', 'text/markdown')
  @ApiOkResponse({
    description: 'The rows, streamed page by page as the reader drains them',
    content: {
      'application/x-ndjson': {
        schema: { type: 'string', description: 'One `GET /v1/sessions` item per line' },
      },
      'text/markdown': { schema: { type: 'string', description: 'A table, one row per conversation' } },
    },
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="sessions.jsonl" (or .md)',
        schema: { type: 'string' },
        required: true,
      },
    },
  })
  async exportList(
    @Ctx() ctx: OperationContext,
    @Query({ schema: SessionListExportQuerySchema }) query: SessionListExportQuery,
    @Res() response: Response,
  ) {
    const { format, ...filters } = query;
    const rows = this.store.sessions.exportList(ctx, filters);
    // The first page before committing to 200: a refused filter or cursor is still a problem document.
    const first = await rows.next();
    const markdown = format === 'markdown';
    const text = markdown ? listMarkdownRow : (row: unknown) => `${JSON.stringify(row)}\n`;
    response.status(200).type(EXPORT_CONTENT_TYPE[format]);
    response.setHeader('Content-Disposition', `attachment; filename="sessions.${EXPORT_EXTENSION[format]}"`);
    if (markdown) response.write(LIST_MARKDOWN_HEADER);
    if (!first.done) response.write(text(first.value));
    await streamOut(response, rows, text);
  }

  @Get('facets')
  @Answers('Known sources and models (most used first, bounded) for the list filters', SessionFacetsSchema)
  facets(@Ctx() ctx: OperationContext, @Query({ schema: SessionFacetsQuerySchema }) query: SessionFacetsQuery) {
    return this.store.stats.facets(ctx, query);
  }

  @Get('count')
  @Answers('Exact counts of the sessions the filters select and of their messages', SessionCountSchema)
  count(@Ctx() ctx: OperationContext, @Query({ schema: SessionCountQuerySchema }) query: SessionCountQuery) {
    return this.store.sessions.count(ctx, query);
  }

  @Get('resolve-id')
  @Answers('An exact session id, or the one id a prefix names (ambiguous: null)', ResolveIdSchema)
  resolveId(@Ctx() ctx: OperationContext, @Query({ schema: ResolveIdQuerySchema }) query: ResolveIdQuery) {
    return this.store.sessions.resolveId(ctx, query);
  }

  @Get('title-lineage')
  @Answers(
    'Who holds a title, its newest "title #N" continuation, and the title the next continuation takes',
    TitleLineageSchema,
  )
  titleLineage(@Ctx() ctx: OperationContext, @Query({ schema: TitleLineageQuerySchema }) query: TitleLineageQuery) {
    return this.store.sessions.titleLineage(ctx, query);
  }

  @Get('workspaces')
  @Answers('The working directories sessions ran in, with how many sessions and the latest activity', WorkspacesSchema)
  workspaces(@Ctx() ctx: OperationContext, @Query({ schema: WorkspacesQuerySchema }) query: WorkspacesQuery) {
    return this.store.sessions.workspaces(ctx, query);
  }

  @Action('bulk-delete')
  @Answers(
    'Delete up to 500 selected sessions in one transaction; busy, stale and unknown ones are skipped',
    BulkDeleteResponseSchema,
  )
  bulkDelete(@Ctx() ctx: OperationContext, @Body({ schema: BulkDeleteRequestSchema }) body: BulkDeleteRequest) {
    return this.store.deletion.bulkDelete(ctx, body);
  }

  @Post('delete-preview')
  @ReadOnly()
  @HttpCode(200)
  @Answers(
    'What deleting these sessions would remove (delegate cascade, chain members) and orphan',
    DeletePreviewSchema,
  )
  deletePreview(
    @Ctx() ctx: OperationContext,
    @Body({ schema: DeletePreviewRequestSchema }) body: DeletePreviewRequest,
  ) {
    return this.store.deletion.preview(ctx, body);
  }

  @Delete(':id')
  @DestructiveHeaders()
  @Answers(
    'Delete a session (delegates cascade; with includeCompressionChain the whole chain); ifEmpty=true discards only an empty one',
    DeleteSessionResponseSchema,
  )
  remove(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Query({ schema: DeleteSessionQuerySchema }) query: DeleteSessionQuery,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.deletion.deleteOne(ctx, id, query, preconditions);
  }

  @Get(':id/export')
  @ApiOperation({
    summary: 'The conversation as JSON lines (the session, its labels, every message, its lineage edges) or Markdown',
  })
  @ApiProduces('application/x-ndjson', 'text/markdown')
  @ApiOkResponse({
    description: 'The session, streamed',
    content: {
      'application/x-ndjson': {
        schema: {
          type: 'string',
          description:
            'One JSON object per line: `{"type":"session","session":…}` first, then `{"type":"label","label":{"name","colour"}}` per label, then `{"type":"message","message":…}` per message (hidden and rewound included), then `{"type":"edge","from","to","kind"}` per lineage edge',
        },
      },
      'text/markdown': {
        schema: {
          type: 'string',
          description: 'The same, as a heading with the session, then one section per message',
        },
      },
    },
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="<id>.jsonl" (or .md)',
        schema: { type: 'string' },
        required: true,
      },
    },
  })
  async export(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Query({ schema: SessionExportQuerySchema }) query: SessionExportQuery,
    @Res() response: Response,
  ) {
    const lines = this.store.sessions.export(ctx, id);
    // Read the first line before committing to 200, so a missing session is still a problem document.
    const first = await lines.next();
    const text = query.format === 'markdown' ? conversationMarkdown : (line: unknown) => `${JSON.stringify(line)}\n`;
    response.status(200).type(EXPORT_CONTENT_TYPE[query.format]);
    response.setHeader('Content-Disposition', `attachment; filename="${id}.${EXPORT_EXTENSION[query.format]}"`);
    if (!first.done) response.write(text(first.value));
    await streamOut(response, lines, text);
  }

  @Post(':id/move')
  @AdminOnly()
  @Mutation()
  @HttpCode(200)
  @Answers(
    'Profile repair (admin): move a session and its chain to another profile; the old profile gets a receipt',
    MoveSessionResponseSchema,
  )
  move(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: MoveSessionRequestSchema }) body: MoveSessionRequest,
  ) {
    return this.store.profileAdmin.move(ctx, id, body.profile);
  }

  @Get(':id')
  @Answers('Read a session (ETag carries its revision)', SessionSchema)
  @UseInterceptors(RevisionEtagInterceptor)
  get(@Ctx() ctx: OperationContext, @IdParam() id: string) {
    return this.store.sessions.get(ctx, id);
  }

  @Action(':id/end')
  @RevisionChecked()
  @WriterFenceHeaders()
  @Answers(
    'End the session with a reason (first end wins; a reset reason bumps the conversation generation)',
    SessionSchema,
  )
  end(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: EndSessionRequestSchema }) body: EndSessionRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.sessions.end(ctx, id, body, preconditions);
  }

  @Action(':id/usage')
  @RevisionChecked(false)
  @WriterFenceHeaders()
  @Answers(
    'Account model calls: add a call’s tokens, calls and cost (increment, recorded per model and billing route) or set running totals (absolute)',
    SessionSchema,
  )
  usage(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: RecordUsageRequestSchema }) body: RecordUsageRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.sessions.recordUsage(ctx, id, body, preconditions);
  }

  @Get(':id/usage')
  @Answers('The session’s usage per model, billing route and task', ModelUsageListSchema)
  modelUsage(@Ctx() ctx: OperationContext, @IdParam() id: string) {
    return this.store.sessions.modelUsage(ctx, id);
  }

  @Action(':id/reopen')
  @RevisionChecked()
  @WriterFenceHeaders()
  @Answers(
    'Clear an end stamp: automatic ends freely; a deliberate close only for the transport that delivers the conversation (transportProfile) or a dashboard user (409 reopen_not_permitted); final ends never (409 session_closed)',
    SessionSchema,
  )
  reopen(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: ReopenSessionRequestSchema }) body: ReopenSessionRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.sessions.reopen(ctx, id, body, preconditions);
  }

  @Post(':id/rewind')
  @DestructiveHeaders()
  @HttpCode(200)
  @Answers('Rewind: mark a message and every later one inactive (they leave search at once)', RewindResponseSchema)
  rewind(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: RewindRequestSchema }) body: RewindRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.rewinds.rewind(ctx, id, body, preconditions);
  }

  @Patch(':id')
  @Mutation()
  @RevisionChecked()
  @WriterFenceHeaders()
  @Answers(
    'Rename, archive, pin, hide, or re-stamp where the conversation lives (source, transportProfile: fenced during another holder’s turn)',
    SessionSchema,
  )
  update(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: UpdateSessionRequestSchema }) body: UpdateSessionRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.sessions.update(ctx, id, body, preconditions);
  }
}

/** Writes what is left of `lines`; a slow reader holds the export back (pages are read as it drains), not the server's memory. */
async function streamOut<T>(response: Response, lines: AsyncIterator<T>, text: (line: T) => string): Promise<void> {
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    if (response.destroyed) break;
    if (!response.write(text(next.value))) {
      await new Promise((resolve) => {
        response.once('drain', resolve);
        response.once('close', resolve);
      });
    }
  }
  response.end();
}
