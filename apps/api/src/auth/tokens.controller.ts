import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  ApiTokenSchema,
  CreatedTokenSchema,
  type CreateTokenRequest,
  CreateTokenRequestSchema,
  IdSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';
import { AdminOnly } from './auth-mode.decorator.js';

@ApiTags('tokens')
@ApiBearerAuth()
@ApiCookieAuth()
@AdminOnly()
@Controller('v1/tokens')
export class TokensController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @ApiOperation({ summary: 'Create an API token (admin); the token is shown once' })
  @ApiCreatedResponse({ standardSchema: CreatedTokenSchema })
  create(@Ctx() ctx: OperationContext, @Body({ schema: CreateTokenRequestSchema }) body: CreateTokenRequest) {
    return this.store.auth.createToken(ctx, body);
  }

  @Get()
  @ApiOperation({ summary: 'List API tokens (admin); never their secrets' })
  @ApiOkResponse({ standardSchema: ApiTokenSchema.array() })
  list(@Ctx() ctx: OperationContext) {
    return this.store.auth.listTokens(ctx);
  }

  @Delete(':id')
  @Mutation()
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API token (admin)' })
  @ApiNoContentResponse()
  revoke(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.auth.revokeToken(ctx, id);
  }
}
