import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
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
  type DeleteProfileQuery,
  DeleteProfileQuerySchema,
  DeleteProfileResponseSchema,
  ProfileListSchema,
  ProfileNameSchema,
  ProfileSummarySchema,
  type RenameProfileRequest,
  RenameProfileRequestSchema,
  RenameProfileResponseSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { AdminOnly, isDryRunQuery, ReadOnly } from '../auth/auth-mode.decorator.js';
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
  @AdminOnly()
  @Mutation()
  @ApiOperation({ summary: 'Create a profile (admin)' })
  @ApiCreatedResponse({ standardSchema: ProfileSummarySchema })
  create(@Ctx() ctx: OperationContext, @Body({ schema: CreateProfileRequestSchema }) body: CreateProfileRequest) {
    return this.store.profiles.create(ctx, body.name);
  }

  @Post(':name/rename')
  @AdminOnly()
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Rename a profile in one transaction (admin); 409 profile_collision before any change' })
  @ApiOkResponse({ standardSchema: RenameProfileResponseSchema })
  rename(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Body({ schema: RenameProfileRequestSchema }) body: RenameProfileRequest,
  ) {
    return this.store.profileAdmin.rename(ctx, name, body.newName, body.dryRun);
  }

  @Delete(':name')
  @AdminOnly()
  @Mutation()
  @ReadOnly(isDryRunQuery)
  @ApiOperation({
    summary: 'Delete a profile (admin): routes and memberships go; sessions only with deleteSessions=true',
  })
  @ApiOkResponse({ standardSchema: DeleteProfileResponseSchema })
  remove(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Query({ schema: DeleteProfileQuerySchema }) query: DeleteProfileQuery,
  ) {
    return this.store.profileAdmin.delete(ctx, name, query);
  }
}
