import { Body, Controller, Get, Inject, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type CreateProfileRequest,
  CreateProfileRequestSchema,
  ProfileListSchema,
  ProfileSummarySchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('profiles')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/profiles')
export class ProfilesController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Get()
  @ApiOperation({ summary: 'Profiles the caller may see, with session and message counts' })
  @ApiOkResponse({ standardSchema: ProfileListSchema })
  list(@Ctx() ctx: OperationContext) {
    return this.store.profiles.list(ctx);
  }

  @Post()
  @Mutation()
  @ApiOperation({ summary: 'Create a profile (admin)' })
  @ApiCreatedResponse({ standardSchema: ProfileSummarySchema })
  create(@Ctx() ctx: OperationContext, @Body({ schema: CreateProfileRequestSchema }) body: CreateProfileRequest) {
    return this.store.profiles.create(ctx, body.name);
  }
}
