import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type ChangePasswordRequest,
  ChangePasswordRequestSchema,
  DashboardSessionSchema,
  EndOtherSessionsResponseSchema,
  IdSchema,
  type LoginRequest,
  LoginRequestSchema,
  PrincipalSchema,
  SESSION_COOKIE_NAME,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import type { Response } from 'express';
import { Ctx } from '../common/context.decorator.js';
import { Throttled } from '../common/operation-facts.decorator.js';
import type { StatehouseRequest } from '../common/request.js';
import { API_CONFIG, STATE_STORE } from '../common/tokens.js';
import type { ApiConfig } from '../config.js';
import { OptionalAuth, Public } from './auth-mode.decorator.js';
import { readCookie } from './cookies.js';

@ApiTags('auth')
@Controller('v1/auth')
export class AuthController {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @Post('login')
  @Public()
  @Throttled()
  @HttpCode(204)
  @ApiOperation({ summary: 'Dashboard login: sets an httpOnly, SameSite=Strict session cookie (rate-limited)' })
  @ApiNoContentResponse({
    description: 'Signed in',
    headers: {
      'Set-Cookie': {
        description: `the dashboard session: \`${SESSION_COOKIE_NAME}=…; HttpOnly; SameSite=Strict; Path=/\``,
        schema: { type: 'string' },
        required: true,
      },
    },
  })
  async login(
    @Body({ schema: LoginRequestSchema }) body: LoginRequest,
    @Req() request: StatehouseRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const result = await this.store.auth.login(
      body.username,
      body.password,
      request.ip ?? 'unknown',
      request.header('user-agent'),
    );
    response.cookie(SESSION_COOKIE_NAME, result.sessionSecret, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.secureCookies,
      path: '/',
      expires: new Date(result.expiresAt),
    });
  }

  @Post('logout')
  @OptionalAuth()
  @HttpCode(204)
  @ApiOperation({ summary: 'End the dashboard session' })
  @ApiNoContentResponse()
  async logout(@Req() request: StatehouseRequest, @Res({ passthrough: true }) response: Response): Promise<void> {
    const secret = readCookie(request, SESSION_COOKIE_NAME);
    if (secret) await this.store.auth.logout(secret);
    response.clearCookie(SESSION_COOKIE_NAME, { httpOnly: true, sameSite: 'strict', path: '/' });
  }

  @Post('password')
  @Throttled()
  @HttpCode(204)
  @ApiCookieAuth()
  @ApiOperation({
    summary:
      'Change your own dashboard password (the current one is checked, throttled like a login); your other dashboard sessions are signed out, this one stays',
  })
  @ApiNoContentResponse()
  async changePassword(
    @Ctx() ctx: OperationContext,
    @Body({ schema: ChangePasswordRequestSchema }) body: ChangePasswordRequest,
    @Req() request: StatehouseRequest,
  ): Promise<void> {
    await this.store.auth.changePassword(
      ctx,
      body.currentPassword,
      body.newPassword,
      request.ip ?? 'unknown',
      readCookie(request, SESSION_COOKIE_NAME),
    );
  }

  @Post('sessions/end-others')
  @HttpCode(200)
  @ApiCookieAuth()
  @ApiOperation({ summary: 'Sign out everywhere else: end every dashboard session of yours but this one' })
  @ApiOkResponse({ standardSchema: EndOtherSessionsResponseSchema })
  endOtherSessions(@Ctx() ctx: OperationContext, @Req() request: StatehouseRequest) {
    return this.store.auth.endOtherDashboardSessions(ctx, readCookie(request, SESSION_COOKIE_NAME));
  }

  @Get('sessions')
  @ApiCookieAuth()
  @ApiOperation({
    summary: 'Your signed-in dashboard sessions, newest first; the one making this request is marked current',
  })
  @ApiOkResponse({ standardSchema: DashboardSessionSchema.array() })
  sessions(@Ctx() ctx: OperationContext, @Req() request: StatehouseRequest) {
    return this.store.auth.listDashboardSessions(ctx, readCookie(request, SESSION_COOKIE_NAME));
  }

  @Delete('sessions/:id')
  @HttpCode(204)
  @ApiCookieAuth()
  @ApiOperation({ summary: 'Sign out one of your dashboard sessions (ending the current one also clears its cookie)' })
  @ApiNoContentResponse()
  async endSession(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Req() request: StatehouseRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const ended = await this.store.auth.endDashboardSession(ctx, id, readCookie(request, SESSION_COOKIE_NAME));
    if (ended.current) response.clearCookie(SESSION_COOKIE_NAME, { httpOnly: true, sameSite: 'strict', path: '/' });
  }

  @Get('me')
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOperation({ summary: 'Who the caller is: kind, id, name, role, profiles' })
  @ApiOkResponse({ standardSchema: PrincipalSchema })
  me(@Ctx() ctx: OperationContext) {
    return ctx.principal;
  }
}
