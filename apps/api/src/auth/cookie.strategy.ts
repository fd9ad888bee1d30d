import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { type Principal, SESSION_COOKIE_NAME } from '@statehouse/contracts';
import type { StateStore } from '@statehouse/state';
import { Strategy } from 'passport-custom';
import type { StatehouseRequest } from '../common/request.js';
import { STATE_STORE } from '../common/tokens.js';
import { readCookie } from './cookies.js';

/** The dashboard session cookie: a secret whose hash names a server-side session with an expiry. */
@Injectable()
export class CookieStrategy extends PassportStrategy(Strategy, 'cookie') {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {
    super();
  }

  async validate(request: StatehouseRequest): Promise<Principal | null> {
    const secret = readCookie(request, SESSION_COOKIE_NAME);
    if (!secret) return null;
    const principal = await this.store.auth.authenticateSession(secret);
    request.authMethod = 'cookie';
    return principal;
  }
}
