import { hash, randomBytes } from 'node:crypto';
import {
  type ApiToken,
  type CreatedToken,
  type CreateTokenRequest,
  type CreateUserRequest,
  type DashboardSession,
  type Principal,
  type ProfileSet,
  ProfileSetSchema,
  type Role,
  type UpdateUserRequest,
  type User,
} from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { isUniqueViolation, type SqlDialect } from '../db/sql-dialect.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { LoginThrottle } from '../domain/login-throttle.js';
import {
  dummyPasswordHash,
  hashPassword,
  needsRehash,
  SCRYPT_PARAMETERS,
  type ScryptParameters,
  verifyPassword,
} from '../domain/password.js';
import { ApiTokenRepository, type ApiTokenRow } from '../repositories/api-token.repository.js';
import { AuthSessionRepository, type AuthSessionRow } from '../repositories/auth-session.repository.js';
import { UserRepository, type UserRow } from '../repositories/user.repository.js';
import { assertAdmin } from '../shared/access.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { ConflictError, ForbiddenError, NotFoundError, UnauthenticatedError } from '../shared/errors.js';
import { type IdGenerator, randomSecret } from '../shared/ids.js';
import { toDomainError } from '../shared/store-errors.js';

export const DASHBOARD_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const TOUCH_INTERVAL_MS = 60_000;
/** How long a verified bearer token is trusted without a lookup (bounds revocation lag across processes). */
export const PRINCIPAL_CACHE_MS = 5_000;
const PRINCIPAL_CACHE_MAX = 10_000;

/** One call, no Hash object: every bearer request hashes its token (Node ≥ 20.12, the engines floor is 20.19). */
const sha256 = (text: string) => hash('sha256', text, 'hex');
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
    private readonly dialect: SqlDialect,
    /** scrypt cost of new hashes (tests may lower it; production keeps SCRYPT_PARAMETERS). */
    private readonly passwordParameters: ScryptParameters = SCRYPT_PARAMETERS,
  ) {
    this.throttle = new LoginThrottle(uow, dialect.name);
  }

  // ---- API tokens -------------------------------------------------------------------------

  /**
   * The remembered principal of a token verified within `PRINCIPAL_CACHE_MS`, answered in this
   * call; undefined otherwise (then `authenticateToken` decides). Lets the API's guard skip its
   * asynchronous path on the common case.
   */
  rememberedToken(secret: string): Principal | undefined {
    const cached = this.principalCache.get(sha256(secret));
    return cached && cached.until > this.clock.now() ? cached.principal : undefined;
  }

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
        disabled_at: null,
        last_login_at: null,
      };
      try {
        await this.users.insert(tx.db, row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`user ${request.username} already exists`);
        throw error;
      }
      return toUser(row, 0);
    });
  }

  async listUsers(ctx: OperationContext): Promise<User[]> {
    assertAdmin(ctx.principal);
    const [rows, live] = await this.guard(() =>
      Promise.all([this.users.list(this.db), this.authSessions.countLiveByUser(this.db, this.clock.now())]),
    );
    return rows.map((row) => toUser(row, live.get(row.id) ?? 0));
  }

  /**
   * Role, profile set and disabled state (admin). Disabling ends the user's dashboard sessions in
   * the same transaction; the last active admin can be neither disabled nor demoted (409).
   */
  async updateUser(ctx: OperationContext, id: string, request: UpdateUserRequest): Promise<User> {
    assertAdmin(ctx.principal);
    return this.uow.run(ctx, async (tx) => {
      const activeAdmins = await this.users.lockActiveAdmins(tx.db, this.dialect);
      const user = await this.users.findById(tx.db, id);
      if (!user) throw new NotFoundError('user');
      const now = this.clock.now();
      const disabling = request.disabled === true && user.disabled_at === null;
      const demoting = request.role === 'member' && user.role === 'admin';
      if ((disabling || demoting) && activeAdmins.length === 1 && activeAdmins[0] === id) {
        throw new ConflictError(
          `${user.username} is the last active admin: make another user admin first, then ${disabling ? 'disable' : 'demote'} this one`,
        );
      }
      const patch: { role?: string; profiles?: string; disabled_at?: number | null } = {};
      if (request.role !== undefined) patch.role = request.role;
      if (request.profiles !== undefined) patch.profiles = JSON.stringify(request.profiles);
      if (request.disabled !== undefined) patch.disabled_at = request.disabled ? (user.disabled_at ?? now) : null;
      await this.users.update(tx.db, id, patch);
      if (request.disabled === true) await this.authSessions.deleteAllForUser(tx.db, id);
      tx.afterCommit(() => this.forgetPrincipals());
      const updated = (await this.users.findById(tx.db, id))!;
      const live = await this.authSessions.listLiveForUser(tx.db, id, now);
      return toUser(updated, live.length);
    });
  }

  /** The caller's signed-in dashboard sessions, newest first, the one making this request marked. */
  async listDashboardSessions(ctx: OperationContext, currentSecret: string | undefined): Promise<DashboardSession[]> {
    const userId = dashboardUserOf(ctx);
    const rows = await this.guard(() => this.authSessions.listLiveForUser(this.db, userId, this.clock.now()));
    const currentHash = currentSecret === undefined ? undefined : sha256(currentSecret);
    return rows.map((row) => toDashboardSession(row, row.id_hash === currentHash));
  }

  /** Ends one of the caller's dashboard sessions; says whether it was the one making this request. */
  async endDashboardSession(
    ctx: OperationContext,
    publicId: string,
    currentSecret: string | undefined,
  ): Promise<{ current: boolean }> {
    const userId = dashboardUserOf(ctx);
    return this.uow.run(ctx, async (tx) => {
      const current =
        currentSecret === undefined ? undefined : await this.authSessions.findLive(tx.db, sha256(currentSecret), 0);
      if (!(await this.authSessions.deleteForUser(tx.db, userId, publicId)))
        throw new NotFoundError('dashboard session');
      return { current: current?.public_id === publicId };
    });
  }

  /**
   * "Sign out everywhere else": ends every dashboard session of the caller except the one making
   * this request (`currentSecret`, its cookie). Without a current session every one ends.
   */
  async endOtherDashboardSessions(
    ctx: OperationContext,
    currentSecret: string | undefined,
  ): Promise<{ ended: number }> {
    const userId = dashboardUserOf(ctx);
    return this.uow.run(ctx, async (tx) => ({
      ended: await this.authSessions.deleteOthersForUser(
        tx.db,
        userId,
        currentSecret === undefined ? null : sha256(currentSecret),
      ),
    }));
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
        disabled_at: null,
        last_login_at: null,
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
   * unlimited password oracle. Every other dashboard session of the user ends with the old
   * password (whoever knew it may be signed in elsewhere); the one making the request
   * (`currentSecret`) stays signed in.
   */
  async changePassword(
    ctx: OperationContext,
    currentPassword: string,
    newPassword: string,
    clientAddress = 'unknown',
    currentSecret?: string,
  ): Promise<{ endedSessions: number }> {
    if (ctx.principal.kind !== 'user') throw new ForbiddenError('only dashboard users have passwords');
    const user = await this.guard(() => this.users.findById(this.db, ctx.principal.id));
    if (!user) throw new UnauthenticatedError('the current password is wrong');
    const reservation = await this.throttle.reserve(user.username, clientAddress, this.clock.now());
    if (!(await verifyPassword(currentPassword, user.password_hash))) {
      await this.throttle.failed(reservation);
      throw new UnauthenticatedError('the current password is wrong');
    }
    const passwordHash = await hashPassword(newPassword, this.passwordParameters);
    return this.uow.run(ctx, async (tx) => {
      await this.throttle.succeeded(tx.db, reservation, this.clock.now());
      await this.users.setPasswordHash(tx.db, user.id, passwordHash);
      const keep = currentSecret === undefined ? null : sha256(currentSecret);
      return { endedSessions: await this.authSessions.deleteOthersForUser(tx.db, user.id, keep) };
    });
  }

  /**
   * Throttled per account, per client address and per (account, address) pair (LoginThrottle):
   * the attempt is reserved before the slow password check, so parallel guesses cannot all pass,
   * and a refused attempt costs no hashing. A hash made with older parameters is upgraded here. A
   * disabled user with the right password is told so (and nobody else is); it counts as a failure.
   */
  async login(username: string, password: string, clientAddress: string, userAgent?: string): Promise<LoginResult> {
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
    if (user.disabled_at !== null) {
      await this.throttle.failed(reservation);
      throw new UnauthenticatedError('this account is disabled; ask an admin');
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
        public_id: randomSecret(12),
        last_seen_at: now,
        user_agent: userAgent ? userAgent.slice(0, 512) : null,
        client_address: clientAddress.slice(0, 128),
      });
      await this.users.setLastLogin(tx.db, user.id, now);
    });
    return { sessionSecret: secret, expiresAt, principal: userPrincipal(user) };
  }

  async authenticateSession(secret: string): Promise<Principal> {
    const now = this.clock.now();
    const session = await this.guard(() => this.authSessions.findLive(this.db, sha256(secret), now));
    if (!session) throw new UnauthenticatedError('the dashboard session expired or was ended');
    const user = await this.guard(() => this.users.findById(this.db, session.user_id));
    if (!user || user.disabled_at !== null)
      throw new UnauthenticatedError('the dashboard session expired or was ended');
    if (session.last_seen_at === null || now - Number(session.last_seen_at) > TOUCH_INTERVAL_MS) {
      // Best effort and throttled, like token use: "last seen" on the account page.
      await this.authSessions.touch(this.db, session.id_hash, now).catch(() => undefined);
    }
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

function toUser(row: UserRow, activeSessions: number): User {
  return {
    id: row.id,
    username: row.username,
    role: row.role as Role,
    profiles: parseProfiles(row.profiles),
    createdAt: toIso(Number(row.created_at)),
    disabled: row.disabled_at !== null,
    disabledAt: toIsoOrNull(row.disabled_at === null ? null : Number(row.disabled_at)),
    lastLoginAt: toIsoOrNull(row.last_login_at === null ? null : Number(row.last_login_at)),
    activeSessions,
  };
}

function toDashboardSession(row: AuthSessionRow, current: boolean): DashboardSession {
  return {
    id: row.public_id,
    createdAt: toIso(Number(row.created_at)),
    lastSeenAt: toIsoOrNull(row.last_seen_at === null ? null : Number(row.last_seen_at)),
    expiresAt: toIso(Number(row.expires_at)),
    userAgent: row.user_agent,
    address: row.client_address,
    current,
  };
}

/** Dashboard sessions belong to users; a token has none. */
function dashboardUserOf(ctx: OperationContext): string {
  if (ctx.principal.kind !== 'user') throw new ForbiddenError('only dashboard users have dashboard sessions');
  return ctx.principal.id;
}
