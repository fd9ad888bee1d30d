import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SESSION_COOKIE_NAME } from '@statehouse/contracts';
import { ForbiddenError, type StateStore, UnauthenticatedError } from '@statehouse/state';
import type { StatehouseRequest } from '../common/request.js';
import { STATE_STORE } from '../common/tokens.js';
import { AUTH_MODE, type AuthMode, READ_ONLY, type ReadOnlyWhen } from './auth-mode.decorator.js';
import { readCookie } from './cookies.js';
import { isCrossSiteBrowserRequest, isSameOriginRequest } from './same-origin.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER = /^Bearer$/i;

/** A route's auth metadata, read once per handler (the reflector allocates on every lookup). */
interface RouteAuth {
  mode: AuthMode;
  readOnly: ReadOnlyWhen | true | undefined;
}

/**
 * The bearer token of a request, read as passport-http-bearer read it before this guard replaced
 * it: `Authorization: Bearer <token>` (scheme in any case), else an `access_token` in the body or
 * the query; two of them at once, or a malformed Authorization header, is no token at all (the
 * dashboard cookie may still authenticate the request).
 */
export function bearerToken(request: StatehouseRequest): string | undefined {
  let token: string | undefined;
  const authorization = request.headers.authorization;
  if (authorization) {
    const parts = authorization.split(' ');
    if (parts.length !== 2) return undefined;
    if (BEARER.test(parts[0])) token = parts[1];
  }
  for (const source of [request.body, request.query] as unknown[]) {
    const value = (source as { access_token?: unknown } | undefined)?.access_token;
    if (!value) continue;
    // Repeated (`?access_token=a&access_token=b`) or not text: no token.
    if (token || typeof value !== 'string') return undefined;
    token = value;
  }
  return token || undefined;
}

/**
 * Global guard: every route needs a bearer token or the dashboard cookie unless marked otherwise.
 * A cookie is an ambient credential, so a cookie-authenticated mutation — logout included — is
 * accepted only from the same origin (defence in depth behind SameSite=Strict; docs/security.md,
 * "CSRF"). Bearer tokens are never sent by a browser on its own and are unaffected.
 *
 * The two credentials are checked here directly, bearer first: the passport strategies this
 * replaces cost a session read about a tenth of its server CPU (a passport context, middleware
 * closures and callbacks per request; docs/benchmarks.md) for two lookups in the store.
 */
@Injectable()
export class StatehouseAuthGuard implements CanActivate {
  private readonly routes = new WeakMap<object, RouteAuth>();

  constructor(
    private readonly reflector: Reflector,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { mode, readOnly } = this.routeAuth(context);
    const request = context.switchToHttp().getRequest<StatehouseRequest>();
    const readsOnly = readOnly === true || (typeof readOnly === 'function' && readOnly(request));
    const mutation = !SAFE_METHODS.has(request.method) && !readsOnly;
    if (mode === 'public') {
      // Login from a page on another site would sign the victim's browser into the attacker's account.
      if (mutation && isCrossSiteBrowserRequest(request)) {
        throw new ForbiddenError('requests from another site cannot sign in');
      }
      return true;
    }
    if (mode === 'optional') {
      try {
        await this.authenticate(request);
      } catch {
        // optional: proceed without a principal
      }
    } else {
      await this.authenticate(request);
    }
    if (request.authMethod === 'cookie' && mutation && !isSameOriginRequest(request)) {
      throw new ForbiddenError('the dashboard session can only be used from its own origin');
    }
    return true;
  }

  /** Bearer token first (API tokens, hashed at rest, revocable), then the dashboard session cookie. */
  private async authenticate(request: StatehouseRequest): Promise<void> {
    const token = bearerToken(request);
    if (token) {
      request.user = await this.store.auth.authenticateToken(token);
      request.authMethod = 'bearer';
      return;
    }
    const secret = readCookie(request, SESSION_COOKIE_NAME);
    if (secret) {
      request.user = await this.store.auth.authenticateSession(secret);
      request.authMethod = 'cookie';
      return;
    }
    throw new UnauthenticatedError();
  }

  private routeAuth(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    let auth = this.routes.get(handler);
    if (!auth) {
      const targets = [handler, context.getClass()];
      auth = {
        mode: this.reflector.getAllAndOverride<AuthMode | undefined>(AUTH_MODE, targets) ?? 'required',
        readOnly: this.reflector.getAllAndOverride<ReadOnlyWhen | true | undefined>(READ_ONLY, targets),
      };
      this.routes.set(handler, auth);
    }
    return auth;
  }
}
