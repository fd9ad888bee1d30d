import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ForbiddenError, UnauthenticatedError } from '@statehouse/state';
import type { StatehouseRequest } from '../common/request.js';
import { AUTH_MODE, type AuthMode } from './auth-mode.decorator.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Global guard: every route needs a bearer token or the dashboard cookie unless marked otherwise.
 * Cookie-authenticated mutations from another site are refused (defence in depth behind
 * SameSite=Strict).
 */
@Injectable()
export class StatehouseAuthGuard extends AuthGuard(['bearer', 'cookie']) {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const mode =
      this.reflector.getAllAndOverride<AuthMode | undefined>(AUTH_MODE, [context.getHandler(), context.getClass()]) ??
      'required';
    if (mode === 'public') return true;
    if (mode === 'optional') {
      try {
        await super.canActivate(context);
      } catch {
        // optional: proceed without a principal
      }
      return true;
    }
    await super.canActivate(context);
    const request = context.switchToHttp().getRequest<StatehouseRequest>();
    if (
      request.authMethod === 'cookie' &&
      !SAFE_METHODS.has(request.method) &&
      request.header('sec-fetch-site') === 'cross-site'
    ) {
      throw new ForbiddenError('cross-site requests cannot use the dashboard session');
    }
    return true;
  }

  override handleRequest<TUser>(error: unknown, user: TUser): TUser {
    if (error) throw error;
    if (!user) throw new UnauthenticatedError();
    return user;
  }
}
