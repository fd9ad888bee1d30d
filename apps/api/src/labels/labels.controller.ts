import { Body, Controller, Get, Inject, Param, Patch, Post, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CreateLabelRequest,
  CreateLabelRequestSchema,
  LabelListSchema,
  LabelNameSchema,
  LabelSchema,
  type LabelSessionsRequest,
  LabelSessionsRequestSchema,
  LabelSessionsResponseSchema,
  ProfileNameSchema,
  type UpdateLabelRequest,
  UpdateLabelRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, Preconditions as PreconditionValues, StateStore } from '@statehouse/state';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Action, Answers, RevisionChecked, RevisionCheckedDelete } from '../common/operation.decorator.js';
import { Preconditions } from '../common/preconditions.decorator.js';
import { RevisionEtagInterceptor } from '../common/revision-etag.interceptor.js';
import { STATE_STORE } from '../common/tokens.js';

/** Labels of a profile and the sessions carrying them (docs/api.md, "Labels"; docs/domain.md §15). */
@ApiTags('labels')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/profiles/:name/labels')
export class LabelsController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Get()
  @Answers("The profile's labels, by name, with how many sessions carry each", LabelListSchema)
  list(@Ctx() ctx: OperationContext, @Param('name', { schema: ProfileNameSchema }) name: string) {
    return this.store.labels.list(ctx, name);
  }

  @Post()
  @Mutation()
  @ApiOperation({ summary: 'Create a label (409 when the profile has one of that name in any case)' })
  @ApiCreatedResponse({ standardSchema: LabelSchema })
  @UseInterceptors(RevisionEtagInterceptor)
  create(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Body({ schema: CreateLabelRequestSchema }) body: CreateLabelRequest,
  ) {
    return this.store.labels.create(ctx, name, body);
  }

  @Patch(':label')
  @Mutation()
  @RevisionChecked()
  @Answers('Rename or recolour a label (the sessions carrying it keep it)', LabelSchema)
  update(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Param('label', { schema: LabelNameSchema }) label: string,
    @Body({ schema: UpdateLabelRequestSchema }) body: UpdateLabelRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.labels.update(ctx, name, label, body, preconditions);
  }

  @RevisionCheckedDelete(':label', 'Delete a label; the sessions carrying it lose it and nothing else')
  async remove(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Param('label', { schema: LabelNameSchema }) label: string,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    await this.store.labels.delete(ctx, name, label, preconditions);
  }

  @Action(':label/apply')
  @Answers(
    'Tag sessions of the profile with the label, all or none (400 when one is of another profile)',
    LabelSessionsResponseSchema,
  )
  apply(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Param('label', { schema: LabelNameSchema }) label: string,
    @Body({ schema: LabelSessionsRequestSchema }) body: LabelSessionsRequest,
  ) {
    return this.store.labels.apply(ctx, name, label, body.sessionIds);
  }

  @Action(':label/remove')
  @Answers('Take the label off sessions of the profile, all or none', LabelSessionsResponseSchema)
  removeFrom(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Param('label', { schema: LabelNameSchema }) label: string,
    @Body({ schema: LabelSessionsRequestSchema }) body: LabelSessionsRequest,
  ) {
    return this.store.labels.remove(ctx, name, label, body.sessionIds);
  }
}
