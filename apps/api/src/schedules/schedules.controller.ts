import {
  Body,
  Controller,
  Get,
  Head,
  HttpCode,
  Inject,
  Patch,
  Post,
  Query,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiCreatedResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
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
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Action, Answers, IdParam, RevisionChecked, RevisionCheckedDelete } from '../common/operation.decorator.js';
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
    @IdParam('sessionId') sessionId: string,
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
    @IdParam('sessionId') sessionId: string,
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
    @IdParam('sessionId') sessionId: string,
    @IdParam('scheduleId') scheduleId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { revision } = await this.store.schedules.probe(ctx, sessionId, scheduleId);
    response.setHeader('ETag', `"${revision}"`);
  }

  @Get('sessions/:sessionId/schedules')
  @Answers("A session's schedules, by id", SchedulePageSchema)
  list(
    @Ctx() ctx: OperationContext,
    @IdParam('sessionId') sessionId: string,
    @Query({ schema: ListSessionSchedulesQuerySchema }) query: ListSessionSchedulesQuery,
  ) {
    return this.store.schedules.list(ctx, sessionId, query);
  }

  @Get('sessions/:sessionId/schedules/:scheduleId')
  @Answers('One schedule (ETag carries its revision)', ScheduleSchema)
  @UseInterceptors(RevisionEtagInterceptor)
  get(
    @Ctx() ctx: OperationContext,
    @IdParam('sessionId') sessionId: string,
    @IdParam('scheduleId') scheduleId: string,
  ) {
    return this.store.schedules.get(ctx, sessionId, scheduleId);
  }

  @Patch('sessions/:sessionId/schedules/:scheduleId')
  @Mutation()
  @RevisionChecked()
  @Answers('Change a schedule (If-Match its revision); a new timing starts from now', ScheduleSchema)
  update(
    @Ctx() ctx: OperationContext,
    @IdParam('sessionId') sessionId: string,
    @IdParam('scheduleId') scheduleId: string,
    @Body({ schema: UpdateScheduleRequestSchema }) body: UpdateScheduleRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.schedules.update(ctx, sessionId, scheduleId, body, preconditions);
  }

  @RevisionCheckedDelete('sessions/:sessionId/schedules/:scheduleId', 'Delete a schedule (If-Match its revision)')
  async remove(
    @Ctx() ctx: OperationContext,
    @IdParam('sessionId') sessionId: string,
    @IdParam('scheduleId') scheduleId: string,
    @Preconditions() preconditions: PreconditionValues,
  ): Promise<void> {
    await this.store.schedules.deleteOne(ctx, sessionId, scheduleId, preconditions);
  }

  @Get('schedules')
  @Answers("A profile's schedules by id; with gatewayId, the ones that gateway owns", SchedulePageSchema)
  listInProfile(@Ctx() ctx: OperationContext, @Query({ schema: ListSchedulesQuerySchema }) query: ListSchedulesQuery) {
    return this.store.schedules.listInProfile(ctx, query);
  }

  @Get('schedules/due')
  @Answers(
    'Active schedules whose tick is due and unclaimed, oldest first, with their owner (unroutable included)',
    SchedulePageSchema,
  )
  due(@Ctx() ctx: OperationContext, @Query({ schema: DueSchedulesQuerySchema }) query: DueSchedulesQuery) {
    return this.store.schedules.due(ctx, query);
  }

  @Action('schedules/claim')
  @Answers(
    'A gateway claims up to `limit` due ticks it owns, each under a lease and a new generation',
    ClaimedSchedulesSchema,
  )
  claim(@Ctx() ctx: OperationContext, @Body({ schema: ClaimSchedulesRequestSchema }) body: ClaimSchedulesRequest) {
    return this.store.schedules.claim(ctx, body);
  }

  @Action('schedules/:scheduleId/complete')
  @Answers(
    'The claimed tick fired: set the next one (409 claim_expired when another claim took it over)',
    ScheduleSchema,
  )
  @UseInterceptors(RevisionEtagInterceptor)
  complete(
    @Ctx() ctx: OperationContext,
    @IdParam('scheduleId') scheduleId: string,
    @Body({ schema: CompleteScheduleRequestSchema }) body: CompleteScheduleRequest,
  ) {
    return this.store.schedules.complete(ctx, scheduleId, body);
  }
}
