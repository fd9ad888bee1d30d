import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Principal } from '@statehouse/contracts';
import type { StateStore } from '@statehouse/state';
import { Strategy } from 'passport-http-bearer';
import type { StatehouseRequest } from '../common/request.js';
import { STATE_STORE } from '../common/tokens.js';

/** `Authorization: Bearer <token>`: API tokens, hashed at rest, revocable. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {
    super({ passReqToCallback: true });
  }

  async validate(request: StatehouseRequest, token: string): Promise<Principal> {
    const principal = await this.store.auth.authenticateToken(token);
    request.authMethod = 'bearer';
    return principal;
  }
}
