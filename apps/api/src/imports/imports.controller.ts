import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCookieAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  ImportJobPageSchema,
  ImportJobSchema,
  type ImportStarted,
  ImportStartedSchema,
  ImportStreamErrorSchema,
  type ListImportsQuery,
  ListImportsQuerySchema,
  type StartImportQuery,
  StartImportQuerySchema,
} from '@statehouse/contracts';
import { assertSqliteHeader, type OperationContext, type StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { StreamedBody, settleStreamedIdempotency } from '../common/idempotency.interceptor.js';
import { EventStream } from '../common/operation-facts.decorator.js';
import type { StatehouseRequest } from '../common/request.js';
import { SseStreams } from '../common/sse-writer.js';
import { API_CONFIG, STATE_STORE } from '../common/tokens.js';
import type { ApiConfig } from '../config.js';
import { receiveUpload } from './upload.js';

/** How often an idle event stream says it is still there (proxies drop silent connections). */
const KEEPALIVE_MS = 15_000;

@ApiTags('imports')
@ApiBearerAuth()
@ApiCookieAuth()
@AdminOnly()
@Controller('v1/imports')
export class ImportsController {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(SseStreams) private readonly streams: SseStreams,
  ) {}

  @Post()
  @Mutation()
  @StreamedBody()
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Import a Hermes Agent state.db (admin): the body is the file (application/octet-stream, at most STATEHOUSE_IMPORT_MAX_BYTES); one import at a time per store',
  })
  @ApiConsumes('application/octet-stream')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiAcceptedResponse({
    standardSchema: ImportStartedSchema,
    headers: {
      Location: { description: 'the import run: `/v1/imports/{id}`', schema: { type: 'string' }, required: true },
    },
  })
  async start(
    @Ctx() ctx: OperationContext,
    @Query({ schema: StartImportQuerySchema }) query: StartImportQuery,
    @Req() request: StatehouseRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ImportStarted> {
    // Refused before a long upload: not an admin, or another import is running (unless this may be
    // the retry of a request that started it: an Idempotency-Key with a record).
    const retry =
      request.idempotency !== undefined &&
      (await this.store.idempotency.recorded(ctx.principal, request.idempotency.key));
    await this.store.imports.assertIdle(ctx, { leaseChecked: !retry });
    const upload = await receiveUpload(request, response, {
      maxBytes: this.config.importMaxBytes,
      dir: this.config.importDir,
    });
    try {
      // The key's fingerprint covers the file: the same file replays, another file is a 422.
      const replayed = await settleStreamedIdempotency(this.store, request, response, upload.sha256);
      if (replayed) {
        await upload.discard();
        const started = replayed.body as ImportStarted;
        response.setHeader('Location', `/v1/imports/${started.id}`);
        return started;
      }
      assertSqliteHeader(upload.path);
      const started = await this.store.imports.startHermes(ctx, {
        path: upload.path,
        dir: upload.dir,
        fileName: query.fileName ?? null,
        fileBytes: upload.bytes,
        profile: query.profile,
        onConflict: query.onConflict,
        dryRun: query.dryRun,
      });
      response.setHeader('Location', `/v1/imports/${started.id}`);
      return started;
    } catch (error) {
      await upload.discard();
      throw error;
    }
  }

  @Get()
  @ApiOperation({ summary: 'Import runs, newest first (admin)' })
  @ApiOkResponse({ standardSchema: ImportJobPageSchema })
  list(@Ctx() ctx: OperationContext, @Query({ schema: ListImportsQuerySchema }) query: ListImportsQuery) {
    return this.store.imports.list(ctx, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One import run: state, progress, counts so far, the report once finished (admin)' })
  @ApiOkResponse({ standardSchema: ImportJobSchema })
  get(@Ctx() ctx: OperationContext, @Param('id') id: string) {
    return this.store.imports.get(ctx, id);
  }

  @Get(':id/events')
  @ApiOperation({
    summary:
      'Server-sent events (admin): `progress` with the run as it moves, then one `done` with the finished run; the stream then ends',
  })
  @EventStream({
    progress: { description: 'the run as it moves', data: ImportJobSchema },
    done: { description: 'the finished run (succeeded, failed or cancelled); the stream ends', data: ImportJobSchema },
    error: {
      description: 'watching failed; the stream ends (read the run with GET /v1/imports/{id})',
      data: ImportStreamErrorSchema,
    },
  })
  async events(@Ctx() ctx: OperationContext, @Param('id') id: string, @Res() response: Response): Promise<void> {
    // Errors (not found, forbidden) answer as problems before the stream starts.
    await this.store.imports.get(ctx, id);
    const stream = this.streams.open(response, { heartbeatMs: KEEPALIVE_MS });
    try {
      for await (const job of this.store.imports.watch(ctx, id, { signal: stream.signal })) {
        await stream.send({ event: job.state === 'running' ? 'progress' : 'done', data: job });
      }
    } catch (error) {
      await stream.send({ event: 'error', data: { detail: (error as Error).message } });
    } finally {
      stream.close();
    }
  }
}
