import { type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Principal } from '@statehouse/contracts';
import { ForbiddenError, type StateStore, UnauthenticatedError } from '@statehouse/state';
import type { StatehouseRequest } from '../common/request.js';
import { STATE_STORE } from '../common/tokens.js';
import { ADMIN_ONLY, AUTH_MODE, type AuthMode, READ_ONLY, type ReadOnlyWhen } from './auth-mode.decorator.js';
import { isCrossSiteBrowserRequest, isSameOriginRequest } from './same-origin.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A route's auth metadata, read once per handler (the reflector allocates on every lookup). */
interface RouteAuth {
  mode: AuthMode;
  readOnly: ReadOnlyWhen | true | undefined;
  adminOnly: boolean;
}

/**
 * Global guard: every route needs a bearer token or the dashboard cookie unless marked otherwise.
 * The credentials are checked by the passport strategies (bearer.strategy.ts, cookie.strategy.ts),
 * bearer first. A cookie is an ambient credential, so a cookie-authenticated mutation — logout
 * included — is accepted only from the same origin (defence in depth behind SameSite=Strict;
 * docs/security.md, "CSRF"). Bearer tokens are never sent by a browser on its own and are unaffected.
 */
@Injectable()
export class StatehouseAuthGuard extends AuthGuard(['bearer', 'cookie']) {
  private readonly routes = new WeakMap<object, RouteAuth>();

  constructor(
    private readonly reflector: Reflector,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const { mode, readOnly, adminOnly } = this.routeAuth(context);
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
    // The common case answered in this call: a bearer token verified moments ago (the store's
    // principal cache). Only a request passport would read exactly the same way — one
    // `Authorization: Bearer <token>` header, no `access_token` in the body or the query — and
    // with the same outcome: the principal set as passport's guard sets it.
    const principal = this.rememberedBearer(request);
    if (principal) {
      request.authMethod = 'bearer';
      request.user = principal;
      if (adminOnly && mode === 'required') assertAdmin(principal);
      return true;
    }
    if (mode === 'optional') {
      try {
        await super.canActivate(context);
      } catch {
        // optional: proceed without a principal
      }
    } else {
      await super.canActivate(context);
    }
    if (request.authMethod === 'cookie' && mutation && !isSameOriginRequest(request)) {
      throw new ForbiddenError('the dashboard session can only be used from its own origin');
    }
    if (adminOnly && mode === 'required') assertAdmin(request.user);
    return true;
  }

  override handleRequest<TUser>(error: unknown, user: TUser): TUser {
    if (error) throw error;
    if (!user) throw new UnauthenticatedError();
    return user;
  }

  private rememberedBearer(request: StatehouseRequest): Principal | undefined {
    const header = request.headers.authorization;
    if (!header || (request.body as { access_token?: unknown } | undefined)?.access_token) return undefined;
    // Express parses the query string again at every read of `request.query`: a URL without one has none.
    if (request.url.includes('?') && (request.query as { access_token?: unknown } | undefined)?.access_token)
      return undefined;
    const space = header.indexOf(' ');
    if (space < 0 || header.indexOf(' ', space + 1) >= 0 || !/^Bearer$/i.test(header.slice(0, space))) return undefined;
    const token = header.slice(space + 1);
    return token ? this.store.auth.rememberedToken(token) : undefined;
  }

  private routeAuth(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    let auth = this.routes.get(handler);
    if (!auth) {
      const targets = [handler, context.getClass()];
      auth = {
        mode: this.reflector.getAllAndOverride<AuthMode | undefined>(AUTH_MODE, targets) ?? 'required',
        readOnly: this.reflector.getAllAndOverride<ReadOnlyWhen | true | undefined>(READ_ONLY, targets),
        adminOnly: this.reflector.getAllAndOverride<boolean | undefined>(ADMIN_ONLY, targets) === true,
      };
      this.routes.set(handler, auth);
    }
    return auth;
  }
}

function assertAdmin(principal: Principal | undefined): void {
  if (principal?.role !== 'admin') throw new ForbiddenError();
}
