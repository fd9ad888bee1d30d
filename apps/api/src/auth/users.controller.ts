import { Body, Controller, Get, Inject, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CreateUserRequest,
  CreateUserRequestSchema,
  type UpdateUserRequest,
  UpdateUserRequestSchema,
  UserSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Answers, IdParam } from '../common/operation.decorator.js';
import { STATE_STORE } from '../common/tokens.js';
import { AdminOnly } from './auth-mode.decorator.js';

@ApiTags('users')
@ApiBearerAuth()
@ApiCookieAuth()
@AdminOnly()
@Controller('v1/users')
export class UsersController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @ApiOperation({ summary: 'Create a dashboard user (admin)' })
  @ApiCreatedResponse({ standardSchema: UserSchema })
  create(@Ctx() ctx: OperationContext, @Body({ schema: CreateUserRequestSchema }) body: CreateUserRequest) {
    return this.store.auth.createUser(ctx, body);
  }

  @Get()
  @Answers(
    'List dashboard users (admin): role, profiles, disabled, last sign-in, sessions signed in',
    UserSchema.array(),
  )
  list(@Ctx() ctx: OperationContext) {
    return this.store.auth.listUsers(ctx);
  }

  @Patch(':id')
  @Mutation()
  @Answers(
    'Change a user’s role, profiles or disabled state (admin); disabling ends their dashboard sessions; the last active admin cannot be disabled or demoted (409)',
    UserSchema,
  )
  update(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: UpdateUserRequestSchema }) body: UpdateUserRequest,
  ) {
    return this.store.auth.updateUser(ctx, id, body);
  }
}
