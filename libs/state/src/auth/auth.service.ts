import { createHash, randomBytes } from 'node:crypto';
import {
  type ApiToken,
  type CreatedToken,
  type CreateTokenRequest,
  type CreateUserRequest,
  type Principal,
  type ProfileSet,
  ProfileSetSchema,
  type Role,
  type User,
} from '@statehouse/contracts';
import type { Db, Dialect } from '../db/database.js';
import { assertAdmin } from '../shared/access.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { ConflictError, ForbiddenError, NotFoundError, UnauthenticatedError } from '../shared/errors.js';
import { type IdGenerator, randomSecret } from '../shared/ids.js';
import { isUniqueViolation } from '../shared/sql-dialect.js';
import { toDomainError } from '../shared/store-errors.js';
import type { UnitOfWork } from '../shared/unit-of-work.js';
import { ApiTokenRepository, type ApiTokenRow } from './api-token.repository.js';
import { AuthSessionRepository } from './auth-session.repository.js';
import { LoginThrottle } from './login-throttle.js';
import {
  dummyPasswordHash,
  hashPassword,
  needsRehash,
  SCRYPT_PARAMETERS,
  type ScryptParameters,
  verifyPassword,
} from './password.js';
import { UserRepository, type UserRow } from './user.repository.js';

export const DASHBOARD_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const TOUCH_INTERVAL_MS = 60_000;
/** How long a verified bearer token is trusted without a lookup (bounds revocation lag across processes). */
export const PRINCIPAL_CACHE_MS = 5_000;
const PRINCIPAL_CACHE_MAX = 10_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const parseProfiles = (text: string): ProfileSet => {
  const parsed = ProfileSetSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : [];
};

export interface LoginResult {
  /** The cookie value: a secret whose hash is the server-side session id. */
  sessionSecret: string;
  expiresAt: number;
  principal: Principal;
}

export class AuthService {
  private readonly tokens = new ApiTokenRepository();
  private readonly users = new UserRepository();
  private readonly authSessions = new AuthSessionRepository();
  private readonly throttle: LoginThrottle;
  private readonly principalCache = new Map<string, { principal: Principal; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    dialect: Dialect,
    /** scrypt cost of new hashes (tests may lower it; production keeps SCRYPT_PARAMETERS). */
    private readonly passwordParameters: ScryptParameters = SCRYPT_PARAMETERS,
  ) {
    this.throttle = new LoginThrottle(uow, dialect);
  }

  // ---- API tokens -------------------------------------------------------------------------

  /**
   * Bearer tokens are checked on every request, so a verified principal is remembered briefly
   * (`PRINCIPAL_CACHE_MS`). This process forgets at once on revocation and on profile changes;
   * other processes within that window.
   */
  async authenticateToken(secret: string): Promise<Principal> {
    const hash = sha256(secret);
    const now = this.clock.now();
    const cached = this.principalCache.get(hash);
    if (cached && cached.until > now) return cached.principal;
    const row = await this.guard(() => this.tokens.findActiveByHash(this.db, hash));
    if (!row) {
      this.principalCache.delete(hash);
      throw new UnauthenticatedError('invalid or revoked token');
    }
    if (row.last_used_at === null || now - Number(row.last_used_at) > TOUCH_INTERVAL_MS) {
      // Best effort and throttled: a read must not turn into a write on every request.
      await this.tokens.touch(this.db, row.id, now).catch(() => undefined);
    }
    const principal: Principal = {
      kind: 'token',
      id: row.id,
      name: row.name,
      role: row.role as Role,
      profiles: parseProfiles(row.profiles),
    };
    if (this.principalCache.size >= PRINCIPAL_CACHE_MAX) this.principalCache.clear();
    this.principalCache.set(hash, { principal, until: now + PRINCIPAL_CACHE_MS });
    return principal;
  }

  /** Tokens, users or profile sets changed: verify every principal afresh. */
  forgetPrincipals(): void {
    this.principalCache.clear();
  }

  async createToken(ctx: OperationContext, request: CreateTokenRequest): Promise<CreatedToken> {
    assertAdmin(ctx.principal);
    return this.uow.run(ctx, async (tx) => {
      const id = this.ids.next();
      const token = `sh_${randomSecret(32)}`;
      await this.tokens.insert(tx.db, {
        id,
        name: request.name,
        token_hash: sha256(token),
        role: request.role,
        profiles: JSON.stringify(request.profiles),
        created_at: this.clock.now(),
        last_used_at: null,
        revoked_at: null,
      });
      return { id, token };
    });
  }

  async listTokens(ctx: OperationContext): Promise<ApiToken[]> {
    assertAdmin(ctx.principal);
    const rows = await this.guard(() => this.tokens.list(this.db));
    return rows.map(toApiToken);
  }

  async revokeToken(ctx: OperationContext, id: string): Promise<void> {
    assertAdmin(ctx.principal);
    await this.uow.run(ctx, async (tx) => {
      if (!(await this.tokens.revoke(tx.db, id, this.clock.now()))) throw new NotFoundError('token');
      tx.afterCommit(() => this.forgetPrincipals());
    });
  }

  // ---- users and dashboard sessions --------------------------------------------------------

  async createUser(ctx: OperationContext, request: CreateUserRequest): Promise<User> {
    assertAdmin(ctx.principal);
    const passwordHash = await hashPassword(request.password, this.passwordParameters);
    return this.uow.run(ctx, async (tx) => {
      const row: UserRow = {
        id: this.ids.next(),
        username: request.username,
        password_hash: passwordHash,
        role: request.role,
        profiles: JSON.stringify(request.profiles),
        created_at: this.clock.now(),
      };
      try {
        await this.users.insert(tx.db, row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`user ${request.username} already exists`);
        throw error;
      }
      return toUser(row);
    });
  }

  async listUsers(ctx: OperationContext): Promise<User[]> {
    assertAdmin(ctx.principal);
    return (await this.guard(() => this.users.list(this.db))).map(toUser);
  }

  /**
   * First start: with no users, create `admin` with the given password or a generated one, which
   * the caller prints once. Returns null when users already exist.
   */
  async ensureInitialAdmin(
    password?: string,
  ): Promise<{ username: string; password: string; generated: boolean } | null> {
    if ((await this.users.count(this.db)) > 0) return null;
    const chosen = password ?? randomBytes(12).toString('base64url');
    const passwordHash = await hashPassword(chosen, this.passwordParameters);
    try {
      await this.users.insert(this.db, {
        id: this.ids.next(),
        username: 'admin',
        password_hash: passwordHash,
        role: 'admin',
        profiles: JSON.stringify('*'),
        created_at: this.clock.now(),
      });
    } catch (error) {
      // Another replica created it first.
      if (isUniqueViolation(error)) return null;
      throw error;
    }
    return { username: 'admin', password: chosen, generated: password === undefined };
  }

  /**
   * A dashboard user changes their own password (the current one proves it is them). The check
   * of the current password is throttled like a login: a stolen session must not become an
   * unlimited password oracle.
   */
  async changePassword(
    ctx: OperationContext,
    currentPassword: string,
    newPassword: string,
    clientAddress = 'unknown',
  ): Promise<void> {
    if (ctx.principal.kind !== 'user') throw new ForbiddenError('only dashboard users have passwords');
    const user = await this.guard(() => this.users.findById(this.db, ctx.principal.id));
    if (!user) throw new UnauthenticatedError('the current password is wrong');
    const reservation = await this.throttle.reserve(user.username, clientAddress, this.clock.now());
    if (!(await verifyPassword(currentPassword, user.password_hash))) {
      await this.throttle.failed(reservation);
      throw new UnauthenticatedError('the current password is wrong');
    }
    const passwordHash = await hashPassword(newPassword, this.passwordParameters);
    await this.uow.run(ctx, async (tx) => {
      await this.throttle.succeeded(tx.db, reservation, this.clock.now());
      await this.users.setPasswordHash(tx.db, user.id, passwordHash);
    });
  }

  /**
   * Throttled per account, per client address and per (account, address) pair (LoginThrottle):
   * the attempt is reserved before the slow password check, so parallel guesses cannot all pass,
   * and a refused attempt costs no hashing. A hash made with older parameters is upgraded here.
   */
  async login(username: string, password: string, clientAddress: string): Promise<LoginResult> {
    const reservation = await this.throttle.reserve(username, clientAddress, this.clock.now());
    const user = await this.guard(() => this.users.findByUsername(this.db, username));
    const valid = await verifyPassword(
      password,
      user?.password_hash ?? (await dummyPasswordHash(this.passwordParameters)),
    );
    if (!user || !valid) {
      await this.throttle.failed(reservation);
      throw new UnauthenticatedError('wrong username or password');
    }
    const upgradedHash = needsRehash(user.password_hash, this.passwordParameters)
      ? await hashPassword(password, this.passwordParameters)
      : null;
    const secret = randomSecret(32);
    const now = this.clock.now();
    const expiresAt = now + DASHBOARD_SESSION_TTL_MS;
    await this.uow.run(null, async (tx) => {
      await this.throttle.succeeded(tx.db, reservation, now);
      if (upgradedHash) await this.users.replacePasswordHash(tx.db, user.id, user.password_hash, upgradedHash);
      await this.authSessions.deleteExpired(tx.db, now);
      await this.authSessions.insert(tx.db, {
        id_hash: sha256(secret),
        user_id: user.id,
        created_at: now,
        expires_at: expiresAt,
      });
    });
    return { sessionSecret: secret, expiresAt, principal: userPrincipal(user) };
  }

  async authenticateSession(secret: string): Promise<Principal> {
    const session = await this.guard(() => this.authSessions.findLive(this.db, sha256(secret), this.clock.now()));
    if (!session) throw new UnauthenticatedError('the dashboard session expired or was ended');
    const user = await this.guard(() => this.users.findById(this.db, session.user_id));
    if (!user) throw new UnauthenticatedError('the dashboard session expired or was ended');
    return userPrincipal(user);
  }

  async logout(secret: string): Promise<void> {
    await this.guard(() => this.authSessions.delete(this.db, sha256(secret)));
  }

  private async guard<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw toDomainError(error);
    }
  }
}

function userPrincipal(user: UserRow): Principal {
  return {
    kind: 'user',
    id: user.id,
    name: user.username,
    role: user.role as Role,
    profiles: parseProfiles(user.profiles),
  };
}

function toApiToken(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    role: row.role as Role,
    profiles: parseProfiles(row.profiles),
    createdAt: toIso(Number(row.created_at)),
    lastUsedAt: toIsoOrNull(row.last_used_at === null ? null : Number(row.last_used_at)),
    revokedAt: toIsoOrNull(row.revoked_at === null ? null : Number(row.revoked_at)),
  };
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    role: row.role as Role,
    profiles: parseProfiles(row.profiles),
    createdAt: toIso(Number(row.created_at)),
  };
}
