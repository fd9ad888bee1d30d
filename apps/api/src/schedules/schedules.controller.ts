import {
  Body,
  Controller,
  Delete,
  Get,
  Head,
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
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import {
  ClaimedSchedulesSchema,
  type ClaimSchedulesRequest,
  ClaimSchedulesRequestSchema,
  type CompleteScheduleRequest,
  CompleteScheduleRequestSchema,
  type CreateScheduleRequest,
  CreateScheduleRequestSchema,
  type DueSchedulesQuery,
  DueSchedulesQuerySchema,
  IdSchema,
  type ListSchedulesQuery,
  ListSchedulesQuerySchema,
  type ListSessionSchedulesQuery,
  ListSessionSchedulesQuerySchema,
  SchedulePageSchema,
  ScheduleSchema,
  type UpdateScheduleRequest,
  UpdateScheduleRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, Preconditions as PreconditionValues, StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { IfMatchHeader, Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Preconditions } from '../common/preconditions.decorator.js';
import { RevisionEtagInterceptor } from '../common/revision-etag.interceptor.js';
import { STATE_STORE } from '../common/tokens.js';

/** Per-session scheduled wake-ups (docs/domain.md §13; docs/api.md, Schedules). */
@ApiTags('schedules')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1')
export class SchedulesController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post('sessions/:sessionId/schedules')
  @Mutation()
  @ApiOperation({ summary: 'Give a session a scheduled wake-up: an interval or a 5-field cron expression' })
  @ApiCreatedResponse({ standardSchema: ScheduleSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  create(
    @Ctx() ctx: OperationContext,
    @Param('sessionId', { schema: IdSchema }) sessionId: string,
    @Body({ schema: CreateScheduleRequestSchema }) body: CreateScheduleRequest,
  ) {
    return this.store.schedules.create(ctx, sessionId, body);
  }

  // The probes come before the GETs of the same paths: Express answers HEAD with a GET route met first.
  @Head('sessions/:sessionId/schedules')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Probe: 200 (X-Schedule-Count) when the session carries schedules, 404 when none or no such session',
  })
  @ApiResponse({ status: 200, description: 'the session carries schedules; X-Schedule-Count says how many' })
  async probeSession(
    @Ctx() ctx: OperationContext,
    @Param('sessionId', { schema: IdSchema }) sessionId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { count } = await this.store.schedules.probeSession(ctx, sessionId);
    response.setHeader('X-Schedule-Count', String(count));
  }

  @Head('sessions/:sessionId/schedules/:scheduleId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Probe: 200 (ETag) when the schedule exists, 404 otherwise' })
  @ApiResponse({ status: 200, description: 'the schedule exists; ETag carries its revision' })
  async probe(
    @Ctx() ctx: OperationContext,
    @Param('sessionId', { schema: IdSchema }) sessionId: string,
    @Param('scheduleId', { schema: IdSchema }) scheduleId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { revision } = await this.store.schedules.probe(ctx, sessionId, scheduleId);
    response.setHeader('ETag', `"${revision}"`);
  }

  @Get('sessions/:sessionId/schedules')
  @ApiOperation({ summary: "A session's schedules, by id" })
  @ApiOkResponse({ standardSchema: SchedulePageSchema })
  list(
    @Ctx() ctx: OperationContext,
    @Param('sessionId', { schema: IdSchema }) sessionId: string,
    @Query({ schema: ListSessionSchedulesQuerySchema }) query: ListSessionSchedulesQuery,
  ) {
    return this.store.schedules.list(ctx, sessionId, query);
  }

  @Get('sessions/:sessionId/schedules/:scheduleId')
  @ApiOperation({ summary: 'One schedule (ETag carries its revision)' })
  @ApiOkResponse({ standardSchema: ScheduleSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  get(
    @Ctx() ctx: OperationContext,
    @Param('sessionId', { schema: IdSchema }) sessionId: string,
    @Param('scheduleId', { schema: IdSchema }) scheduleId: string,
  ) {
    return this.store.schedules.get(ctx, sessionId, scheduleId);
  }

  @Patch('sessions/:sessionId/schedules/:scheduleId')
  @Mutation()
  @IfMatchHeader()
  @ApiOperation({ summary: 'Change a schedule (If-Match its revision); a new timing starts from now' })
  @ApiOkResponse({ standardSchema: ScheduleSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  update(
    @Ctx() ctx: OperationContext,
    @Param('sessionId', { schema: IdSchema }) sessionId: string,
    @Param('scheduleId', { schema: IdSchema }) scheduleId: string,
    @Body({ schema: UpdateScheduleRequestSchema }) body: UpdateScheduleRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.schedules.update(ctx, sessionId, scheduleId, body, preconditions);
  }

  @Delete('sessions/:sessionId/schedules/:scheduleId')
  @Mutation()
  @IfMatchHeader()
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a schedule (If-Match its revision)' })
  @ApiNoContentResponse()
  async remove(
    @Ctx() ctx: OperationContext,
    @Param('sessionId', { schema: IdSchema }) sessionId: string,
    @Param('scheduleId', { schema: IdSchema }) scheduleId: string,
    @Preconditions() preconditions: PreconditionValues,
  ): Promise<void> {
    await this.store.schedules.deleteOne(ctx, sessionId, scheduleId, preconditions);
  }

  @Get('schedules')
  @ApiOperation({ summary: "A profile's schedules by id; with gatewayId, the ones that gateway owns" })
  @ApiOkResponse({ standardSchema: SchedulePageSchema })
  listInProfile(@Ctx() ctx: OperationContext, @Query({ schema: ListSchedulesQuerySchema }) query: ListSchedulesQuery) {
    return this.store.schedules.listInProfile(ctx, query);
  }

  @Get('schedules/due')
  @ApiOperation({
    summary: 'Active schedules whose tick is due and unclaimed, oldest first, with their owner (unroutable included)',
  })
  @ApiOkResponse({ standardSchema: SchedulePageSchema })
  due(@Ctx() ctx: OperationContext, @Query({ schema: DueSchedulesQuerySchema }) query: DueSchedulesQuery) {
    return this.store.schedules.due(ctx, query);
  }

  @Post('schedules/claim')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'A gateway claims up to `limit` due ticks it owns, each under a lease and a new generation',
  })
  @ApiOkResponse({ standardSchema: ClaimedSchedulesSchema })
  claim(@Ctx() ctx: OperationContext, @Body({ schema: ClaimSchedulesRequestSchema }) body: ClaimSchedulesRequest) {
    return this.store.schedules.claim(ctx, body);
  }

  @Post('schedules/:scheduleId/complete')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary: 'The claimed tick fired: set the next one (409 claim_expired when another claim took it over)',
  })
  @ApiOkResponse({ standardSchema: ScheduleSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  complete(
    @Ctx() ctx: OperationContext,
    @Param('scheduleId', { schema: IdSchema }) scheduleId: string,
    @Body({ schema: CompleteScheduleRequestSchema }) body: CompleteScheduleRequest,
  ) {
    return this.store.schedules.complete(ctx, scheduleId, body);
  }
}
