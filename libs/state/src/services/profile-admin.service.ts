import type {
  DeleteProfileQuery,
  DeleteProfileResponse,
  MoveSessionResponse,
  ProfileSet,
  RenameProfileResponse,
} from '@statehouse/contracts';
import type { Db, Executor } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import type { DeletionNotice } from '../domain/deletion-notice.js';
import { availableTitle } from '../domain/session-titles.js';
import { ApiTokenRepository } from '../repositories/api-token.repository.js';
import { ConversationGenerationRepository } from '../repositories/conversation-generation.repository.js';
import { DelegationRepository } from '../repositories/delegation.repository.js';
import { DeliveryRepository } from '../repositories/delivery.repository.js';
import { GatewayRepository } from '../repositories/gateway.repository.js';
import { LabelRepository } from '../repositories/label.repository.js';
import { MessageRepository } from '../repositories/message.repository.js';
import { ProfileRepository } from '../repositories/profile.repository.js';
import { ProfileMetaRepository } from '../repositories/profile-meta.repository.js';
import { ReplyLatencyRepository } from '../repositories/reply-latency.repository.js';
import { RetentionPolicyRepository } from '../repositories/retention-policy.repository.js';
import { RouteRepository } from '../repositories/route.repository.js';
import { ScheduleRepository } from '../repositories/schedule.repository.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { UserRepository } from '../repositories/user.repository.js';
import { assertAdmin } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { ConflictError, NotFoundError, ProfileCollisionError, SessionBusyError } from '../shared/errors.js';
import type { DeletionEngine } from './deletion.engine.js';
import { INITIAL_CHUNK_MESSAGES, runInChunks, selectionGroups } from './deletion-chunks.js';

const keyPrefix = (profile: string) => `agent:${profile}:`;

const PROFILE_DELETE = (ctx: OperationContext) => ({
  origin: 'profile_delete' as const,
  reason: 'profile_delete' as const,
  intent: 'maintenance' as const,
  actor: ctx.principal,
});

/**
 * Administrative profile changes (docs/domain.md §6): rename and delete in one transaction each, and the
 * profile-repair move of a session. Receipts of the past are never rewritten.
 */
export class ProfileAdminService {
  private readonly profiles = new ProfileRepository();
  private readonly sessions: SessionRepository;
  private readonly routes = new RouteRepository();
  private readonly generations = new ConversationGenerationRepository();
  private readonly policies = new RetentionPolicyRepository();
  private readonly tokens = new ApiTokenRepository();
  private readonly users = new UserRepository();
  private readonly messages = new MessageRepository();
  private readonly gateways = new GatewayRepository();
  private readonly meta = new ProfileMetaRepository();
  private readonly labels = new LabelRepository();
  private readonly replyLatency: ReplyLatencyRepository;
  private readonly deliveries: DeliveryRepository;
  private readonly delegations: DelegationRepository;
  private readonly schedules: ScheduleRepository;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly engine: DeletionEngine,
    dialect: SqlDialect,
    /** Where the selection of a large profile delete is read (the read pool on SQLite). */
    private readonly reads: Db,
    /** Between two chunks of a large profile delete. */
    private readonly between: (lastChunkMs: number) => Promise<void>,
    /** Token and user profile sets changed: cached principals must be verified afresh. */
    private readonly onPrincipalsChanged: () => void = () => undefined,
  ) {
    this.sessions = new SessionRepository(dialect);
    this.replyLatency = new ReplyLatencyRepository(dialect);
    this.deliveries = new DeliveryRepository(dialect);
    this.delegations = new DelegationRepository(dialect);
    this.schedules = new ScheduleRepository(dialect);
  }

  /**
   * Renames `old` to `newName` everywhere it is named: sessions, routes, routing keys by exact
   * `agent:<old>:` prefix, `origin.profile`, conversation generations, retention policy, gateways,
   * delivery obligations, async delegations, scheduled wake-ups, transport profiles of its sessions
   * and obligations that name `old`, and the profile sets of tokens and users. A collision is
   * refused before anything changes.
   */
  async rename(ctx: OperationContext, old: string, newName: string, dryRun = false): Promise<RenameProfileResponse> {
    assertAdmin(ctx.principal);
    const work = async (tx: Tx): Promise<RenameProfileResponse> => {
      const profile = await this.profiles.find(tx.db, old);
      if (!profile) throw new NotFoundError('profile');
      if (old === newName) throw new ProfileCollisionError('the new name is the current name');
      if (await this.profiles.exists(tx.db, newName))
        throw new ProfileCollisionError(`profile ${newName} already exists`);
      const oldPrefix = keyPrefix(old);
      const newPrefix = keyPrefix(newName);
      const rekeyed = (await this.routes.keysWithPrefix(tx.db, old, oldPrefix)).map(
        (key) => newPrefix + key.slice(oldPrefix.length),
      );
      const clashes = await this.routes.keysIn(tx.db, old, rekeyed);
      if (clashes.length > 0) {
        throw new ProfileCollisionError(
          `routes already use ${clashes.slice(0, 3).join(', ')}; rewriting keys would collide`,
        );
      }

      const now = this.clock.now();
      await this.profiles.insert(tx.db, newName, Number(profile.created_at));
      const sessions = await this.sessions.moveProfile(tx.db, old, newName);
      const sessionKeys = await this.sessions.rewriteKeyPrefix(tx.db, newName, oldPrefix, newPrefix);
      const routes = await this.routes.countInProfile(tx.db, old);
      await this.routes.moveProfile(tx.db, old, newName, oldPrefix, newPrefix);
      let origins = 0;
      for (const { id, origin } of await this.sessions.originsInProfile(tx.db, newName)) {
        const rewritten = renameOrigin(origin, old, newName);
        if (rewritten !== null) {
          await this.sessions.setOrigin(tx.db, id, rewritten);
          origins++;
        }
      }
      for (const { sessionKey, origin } of await this.routes.originsInProfile(tx.db, newName)) {
        const rewritten = renameOrigin(origin, old, newName);
        if (rewritten !== null) await this.routes.setOrigin(tx.db, newName, sessionKey, rewritten);
      }
      // Generations follow the keys without ever going down; old rows stay (never collected).
      const generations = await this.generations.withKeyPrefix(tx.db, oldPrefix);
      for (const row of generations) {
        await this.generations.raiseTo(
          tx.db,
          row.source,
          newPrefix + row.sessionKey.slice(oldPrefix.length),
          row.generation,
          now,
        );
      }
      const retentionPolicies = await this.policies.moveProfile(tx.db, old, newName);
      const gateways = await this.gateways.moveProfile(tx.db, old, newName);
      const deliveries = await this.deliveries.moveProfile(tx.db, old, newName);
      // A transport profile named like the profile is the profile's own bot: it is renamed with it.
      const transportProfiles =
        (await this.sessions.renameTransportProfile(tx.db, newName, old, newName)) +
        (await this.deliveries.renameTransportProfile(tx.db, newName, old, newName));
      const delegations = await this.delegations.moveProfile(tx.db, old, newName);
      const schedules = await this.schedules.moveProfile(tx.db, old, newName, now);
      const metaEntries = await this.meta.moveProfile(tx.db, old, newName);
      // Labels follow the rename; the sessions carrying them keep them (labels.profile-scoped).
      await this.labels.moveProfile(tx.db, old, newName);
      await this.replyLatency.moveProfile(tx.db, old, newName);
      const tokens = await this.rewriteProfileSets(tx.db, this.tokens, (set) =>
        set.map((name) => (name === old ? newName : name)),
      );
      const users = await this.rewriteProfileSets(tx.db, this.users, (set) =>
        set.map((name) => (name === old ? newName : name)),
      );
      await this.profiles.delete(tx.db, old);
      tx.afterCommit(this.onPrincipalsChanged);
      return {
        name: newName,
        dryRun,
        counts: {
          sessions,
          routes,
          sessionKeys,
          origins,
          conversationGenerations: generations.length,
          retentionPolicies,
          tokens,
          users,
          gateways,
          deliveries,
          transportProfiles,
          delegations,
          schedules,
          metaEntries,
        },
      };
    };
    return dryRun ? this.uow.rehearse(work) : this.uow.run(ctx, work);
  }

  /**
   * Purges a profile's identity (routes, registered gateways, retention policy, membership in every
   * token's and user's profile set). Its sessions are kept unless `deleteSessions`, which goes through the deletion
   * engine with a `profile_delete` receipt; the profile row itself goes once no session needs it.
   */
  async delete(ctx: OperationContext, name: string, query: DeleteProfileQuery): Promise<DeleteProfileResponse> {
    assertAdmin(ctx.principal);
    // Observers hear the profile delete once, after its last transaction (docs/domain.md §5.2).
    const notice = this.engine.notice();
    return notice.around(() => this.deleteProfile(ctx, name, query, notice));
  }

  private async deleteProfile(
    ctx: OperationContext,
    name: string,
    query: DeleteProfileQuery,
    notice: DeletionNotice,
  ): Promise<DeleteProfileResponse> {
    const chunked = query.deleteSessions && !query.dryRun ? await this.deleteSessionsInChunks(ctx, name, notice) : null;
    // Huge sessions those chunks deleted are hidden rows until their removal ends; the profile row
    // can only go after them.
    if (query.deleteSessions && !query.dryRun) await this.engine.finishPurgesInProfile(this.reads, name, this.between);
    const result = await this.uow.run(chunked ? { ...ctx, idempotency: undefined } : ctx, async (tx) => {
      if (!(await this.profiles.exists(tx.db, name))) throw new NotFoundError('profile');
      const rows = await this.sessions.listInProfile(tx.db, name);
      const plan = query.deleteSessions ? await this.engine.plan(tx.db, rows, false) : undefined;
      const busy = plan ? this.engine.busyMembers(plan) : [];
      if (busy.length > 0) throw new SessionBusyError(`session ${busy[0].row.id} has a live turn; nothing was deleted`);
      const counts = {
        routes: await this.routes.countInProfile(tx.db, name),
        tokens: 0,
        users: 0,
        retentionPolicies: 0,
        sessions: plan ? plan.members.size : 0,
        messages: plan ? await this.messages.countForSessions(tx.db, [...plan.members.keys()]) : 0,
        gateways: await this.gateways.countInProfile(tx.db, name),
        metaEntries: await this.meta.count(tx.db, name),
      };
      if (query.dryRun) {
        counts.tokens = await this.countProfileSets(tx.db, this.tokens, name);
        counts.users = await this.countProfileSets(tx.db, this.users, name);
        return {
          dryRun: true,
          profileRemoved: query.deleteSessions || rows.length === 0,
          counts,
          receipt: null,
          receipts: [],
        };
      }
      const receipts: DeleteProfileResponse['receipts'] = [...(chunked?.receipts ?? [])];
      if (chunked) {
        counts.sessions += chunked.sessions;
        counts.messages += chunked.messages;
      }
      if (plan && plan.members.size > 0) {
        // Whatever is left goes in this transaction, huge or not: the profile row goes with it.
        const outcome = await this.engine.execute(tx, plan, { ...PROFILE_DELETE(ctx), rowsNow: true, notice });
        receipts.push(...outcome.receipts);
      }
      const receipt = receipts[0] ?? null;
      await this.routes.deleteForProfile(tx.db, name);
      await this.gateways.deleteForProfile(tx.db, name);
      await this.meta.deleteForProfile(tx.db, name);
      await this.labels.deleteForProfile(tx.db, name);
      counts.retentionPolicies = await this.policies.clear(tx.db, name);
      counts.tokens = await this.rewriteProfileSets(tx.db, this.tokens, (set) => set.filter((entry) => entry !== name));
      counts.users = await this.rewriteProfileSets(tx.db, this.users, (set) => set.filter((entry) => entry !== name));
      tx.afterCommit(this.onPrincipalsChanged);
      const profileRemoved = (await this.sessions.countInProfile(tx.db, name)) === 0;
      if (profileRemoved) await this.profiles.delete(tx.db, name);
      return { dryRun: false, profileRemoved, counts, receipt, receipts };
    });
    return result;
  }

  /**
   * A profile with many messages: its sessions go first, in chunks (each a transaction with its
   * own `profile_delete` receipt); the caller's transaction then removes what is left and the
   * profile's identity. A busy session stops everything before anything is deleted. Small
   * profiles (null) stay one transaction.
   */
  private async deleteSessionsInChunks(
    ctx: OperationContext,
    name: string,
    notice: DeletionNotice,
  ): Promise<{ receipts: DeleteProfileResponse['receipts']; sessions: number; messages: number } | null> {
    const plan = await this.engine.plan(this.reads, await this.sessions.listInProfile(this.reads, name), false);
    const busy = this.engine.busyMembers(plan);
    if (busy.length > 0) throw new SessionBusyError(`session ${busy[0].row.id} has a live turn; nothing was deleted`);
    const groups = selectionGroups(plan);
    if (groups.reduce((sum, group) => sum + group.messages, 0) <= INITIAL_CHUNK_MESSAGES) return null;
    const result = { receipts: [] as DeleteProfileResponse['receipts'], sessions: 0, messages: 0 };
    await runInChunks(groups, this.between, (ids) =>
      this.uow.run({ ...ctx, idempotency: undefined }, async (tx) => {
        const rows = (await this.sessions.listByIds(tx.db, ids)).filter((row) => row.profile === name);
        let chunk = await this.engine.plan(tx.db, rows, false);
        // Busy since the check: those sessions stay for the final transaction to refuse.
        const busyNow = new Set(this.engine.busyMembers(chunk).map((member) => member.selectedId));
        if (busyNow.size > 0) {
          chunk = await this.engine.plan(
            tx.db,
            rows.filter((row) => !busyNow.has(row.id)),
            false,
          );
        }
        result.sessions += chunk.members.size;
        result.messages += [...chunk.members.values()].reduce(
          (sum, member) => sum + Number(member.row.message_count),
          0,
        );
        result.receipts.push(...(await this.engine.execute(tx, chunk, { ...PROFILE_DELETE(ctx), notice })).receipts);
      }),
    );
    return result;
  }

  /**
   * Profile repair: a session (with its compression chain and delegates) moves to another profile.
   * Its old profile sees a removal — a `profile_repair` receipt that counts no content — and
   * deletion observers hear it from that side (`reason: 'profile_repair'`, `toProfile`), move
   * observers as a move (the rows are alive: docs/domain.md §5.2); its delivery obligations follow
   * it; its routes there are dropped, and its routing key follows the new profile's prefix.
   */
  async move(ctx: OperationContext, sessionId: string, target: string): Promise<MoveSessionResponse> {
    assertAdmin(ctx.principal);
    return this.uow.run(ctx, async (tx) => {
      const row = await this.sessions.findByIdForUpdate(tx.db, sessionId);
      if (!row) throw new NotFoundError('session');
      if (!(await this.profiles.exists(tx.db, target))) throw new NotFoundError('profile');
      if (row.profile === target) throw new ConflictError(`session ${sessionId} is already in profile ${target}`);
      const plan = await this.engine.plan(tx.db, [row], true);
      const busy = this.engine.busyMembers(plan);
      if (busy.length > 0) throw new SessionBusyError(`session ${busy[0].row.id} has a live turn`);
      const outcome = await this.engine.relocate(
        tx,
        plan,
        { origin: 'profile_repair', reason: 'profile_repair', intent: 'maintenance', actor: ctx.principal },
        target,
        (member) => availableTitle(this.sessions, tx.db, target, member.title, 'derived'),
      );
      return { movedIds: outcome.deletedIds, receipt: outcome.receipts[0] ?? null };
    });
  }

  private async rewriteProfileSets(
    db: Executor,
    repository: ApiTokenRepository | UserRepository,
    change: (set: string[]) => string[],
  ): Promise<number> {
    let changed = 0;
    for (const { id, profiles } of await repository.listProfileSets(db)) {
      const set = JSON.parse(profiles) as ProfileSet;
      if (set === '*') continue;
      const next = [...new Set(change(set))];
      if (next.length !== set.length || next.some((name, index) => name !== set[index])) {
        await repository.setProfiles(db, id, JSON.stringify(next));
        changed++;
      }
    }
    return changed;
  }

  private async countProfileSets(
    db: Executor,
    repository: ApiTokenRepository | UserRepository,
    name: string,
  ): Promise<number> {
    const rows = await repository.listProfileSets(db);
    return rows.filter(({ profiles }) => {
      const set = JSON.parse(profiles) as ProfileSet;
      return set !== '*' && set.includes(name);
    }).length;
  }
}

/** `origin.profile` follows a rename; other origins are left as they are (null = unchanged). */
function renameOrigin(origin: string, old: string, newName: string): string | null {
  try {
    const parsed = JSON.parse(origin) as Record<string, unknown>;
    if (parsed && typeof parsed === 'object' && parsed.profile === old)
      return JSON.stringify({ ...parsed, profile: newName });
  } catch {
    // not JSON: nothing to rewrite
  }
  return null;
}
