import type {
  DeletionIntent,
  DeletionOrigin,
  DeletionReason,
  LineageKind,
  Principal,
  ReceiptCounts,
  ReceiptIdentity,
  ReceiptRef,
} from '@statehouse/contracts';
import { ChunkSizer, reportChunk, STEP_BUDGET_MS, timeBoxed } from '../db/chunks.js';
import type { Dialect, Executor, SessionRow } from '../db/database.js';
import { sqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import type { Wakeups } from '../db/wakeup.port.js';
import { DeletionNotice, mergeDeletionEvents } from '../domain/deletion-notice.js';
import type { DeletionParticipant } from '../domain/deletion-participant.js';
import type { HookRegistry, SessionDeletedEvent, SessionMovedEvent } from '../domain/hook-registry.js';
import { ReceiptWriter } from '../domain/receipt-writer.js';
import { LineageRepository } from '../repositories/lineage.repository.js';
import { MessageRepository } from '../repositories/message.repository.js';
import { isBusy, SessionRepository } from '../repositories/session.repository.js';
import { UsageRollupRepository } from '../repositories/usage-rollup.repository.js';
import type { Clock } from '../shared/clock.js';
import { SessionBusyError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import type { DeferredWorkService } from './deferred-work.service.js';

export type MemberRole = ReceiptIdentity['role'];

/**
 * A removed session with more messages than this is hidden by the deletion's transaction and its
 * messages removed afterwards in chunks (deferred work): removing 10⁵ messages in the deleting
 * transaction held SQLite's write lock ≈ 1.5 s. Below it, removal stays in that transaction
 * (≈ 15 µs a message: ≤ ~30 ms).
 */
export const PURGE_LATER_ABOVE_MESSAGES = 2000;
/** `sessions.hidden_for` of a deleted session whose rows are still being removed. */
export const HIDDEN_FOR_DELETION = 'deletion';
export const DELETION_PURGE_WORK = 'deletion-purge';

export interface Member {
  row: SessionRow;
  role: MemberRole;
  /** The selected session this member is removed because of. */
  selectedId: string;
}

export interface DeletionPlan {
  members: Map<string, Member>;
  /** Children of removed sessions that stay, orphaned to roots. */
  orphans: SessionRow[];
  /** How the plan was made, so it can be made again once its rows are locked. */
  selected: readonly SessionRow[];
  includeCompressionChain: boolean;
}

export interface DeletionOperation {
  origin: DeletionOrigin;
  intent: DeletionIntent;
  reason: DeletionReason;
  actor: Principal;
  /**
   * Remove every row in this transaction, however many messages: the caller re-uses the ids at
   * once (an import replacing a session writes the new one under the same id).
   */
  rowsNow?: boolean;
  /**
   * Hide and purge later (in chunks) every removed session with more messages than this, instead
   * of PURGE_LATER_ABOVE_MESSAGES: an import replacing sessions uses its own threshold of what is
   * too big for one unit of work, then purges them itself before writing the ids again.
   */
  purgeLaterAbove?: number;
  /**
   * The operation runs in several transactions (chunks): each committed one adds its part here and
   * the caller tells observers once, at the end. Without it this transaction is the operation.
   */
  notice?: DeletionNotice;
}

export interface DeletionOutcome {
  deletedIds: string[];
  receipts: ReceiptRef[];
  /** Removed sessions left hidden (`hidden_for = 'deletion'`) whose rows are purged in chunks after. */
  purging: string[];
}

/**
 * The one deletion engine every path goes through (docs/domain.md §5): expand the selection (compression
 * chain on request, delegate children recursively), write one receipt per profile after the
 * guards and before anything is removed, orphan every other child, remove messages (their search
 * postings go with them), participants' rows (routes) and the sessions — all in the caller's
 * transaction — then, after commit, tell observers and watchers.
 */
export class DeletionEngine {
  private readonly lineage = new LineageRepository();
  private readonly messages = new MessageRepository();
  private readonly sessions: SessionRepository;
  private readonly writer: ReceiptWriter;
  private readonly participants: DeletionParticipant[] = [];
  private readonly usageRollups = new UsageRollupRepository();
  private purge: { deferred: DeferredWorkService; uow: UnitOfWork } | undefined;

  constructor(
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly hooks: HookRegistry,
    private readonly wakeups: Wakeups,
  ) {
    this.writer = new ReceiptWriter(dialect);
    this.sessions = new SessionRepository(sqlDialect(dialect));
  }

  /** Collects the observer call of an operation that spans several transactions. */
  notice(): DeletionNotice {
    return new DeletionNotice(this.hooks);
  }

  addParticipant(participant: DeletionParticipant): void {
    this.participants.push(participant);
  }

  /**
   * Lets a deletion hand the rows of huge sessions to deferred work. Without it (a bare engine)
   * every deletion removes its rows in its own transaction.
   */
  useDeferredWork(deferred: DeferredWorkService, uow: UnitOfWork): void {
    this.purge = { deferred, uow };
    deferred.handle(DELETION_PURGE_WORK, (sessionId, between) => this.purgeHidden(sessionId, between));
  }

  /**
   * Finishes now, in this caller, the removal of the profile's deleted huge sessions (a profile
   * delete needs them gone before its row can go). Safe beside the deferred work doing the same:
   * every chunk re-checks its row.
   */
  async finishPurgesInProfile(
    db: Executor,
    profile: string,
    between: (lastChunkMs: number) => Promise<void>,
  ): Promise<void> {
    if (!this.purge) return;
    for (const id of await this.sessions.listHiddenInProfile(db, profile, HIDDEN_FOR_DELETION)) {
      await this.purgeHidden(id, between);
    }
  }

  /**
   * Removes a deleted session's messages a time-boxed chunk per transaction, then its row — for
   * everyone but this loop it went with its receipt. Idempotent: a row that is gone (or not hidden
   * for deletion) ends it.
   */
  private purgeHidden(sessionId: string, between: (lastChunkMs: number) => Promise<void>): Promise<void> {
    return this.purgeNow(this.purge!.uow, sessionId, between);
  }

  /**
   * Removes a hidden-for-deletion session's rows now, in this caller, a time-boxed chunk per
   * transaction: messages first, then what participants hold per message (the import ledger's
   * entries — a cascade from the row would remove 10⁵ of them in one statement), then the row.
   * Safe beside the deferred work doing the same (every chunk re-checks the row); an importer
   * waits for it before it writes the same id again.
   */
  async purgeNow(uow: UnitOfWork, sessionId: string, between: (lastChunkMs: number) => Promise<void>): Promise<void> {
    const sizer = new ChunkSizer(PURGE_LATER_ABOVE_MESSAGES / 4, 100, 25_000, STEP_BUDGET_MS);
    for (;;) {
      const started = performance.now();
      const box = await uow.run(null, async (tx) => {
        const row = await this.sessions.findIncludingHiddenForUpdate(tx.db, sessionId);
        if (row?.hidden_for !== HIDDEN_FOR_DELETION) return undefined;
        const box = await timeBoxed(sizer, async (limit) => {
          let did = await this.messages.deleteSomeForSession(tx.db, sessionId, limit);
          for (const participant of this.participants) {
            if (did >= limit) break;
            if (participant.purgeSome) did += await participant.purgeSome(tx, sessionId, limit - did);
          }
          return did;
        });
        if (box.done) await this.sessions.deleteHidden(tx.db, sessionId, HIDDEN_FOR_DELETION);
        return box;
      });
      const elapsed = performance.now() - started;
      if (!box) return;
      reportChunk({ operation: 'deletion', heldMs: elapsed, ...box });
      if (box.done) return;
      await between(elapsed);
    }
  }

  /** What removing `selected` takes with it. Rows must already be fenced by the caller. */
  async plan(db: Executor, selected: readonly SessionRow[], includeCompressionChain: boolean): Promise<DeletionPlan> {
    const members = new Map<string, Member>();
    for (const row of selected) members.set(row.id, { row, role: 'selected', selectedId: row.id });
    if (includeCompressionChain) {
      for (const row of selected) {
        const chain = await this.lineage.compressionChainMembers(db, row.id);
        const missing = chain.filter((id) => !members.has(id));
        for (const member of await this.sessions.listByIds(db, missing)) {
          if (member.profile === row.profile)
            members.set(member.id, { row: member, role: 'chain_member', selectedId: row.id });
        }
      }
    }
    // Delegate children go with their parent, recursively (bounded like every walk).
    let frontier = [...members.values()];
    for (let depth = 0; frontier.length > 0 && depth < 1000; depth++) {
      const children = await this.sessions.childrenOf(
        db,
        frontier.map((member) => member.row.id),
        'delegate',
      );
      const next: Member[] = [];
      for (const child of children) {
        if (members.has(child.id)) continue;
        const parent = members.get(child.parent_session_id!)!;
        const member: Member = { row: child, role: 'delegate_cascade', selectedId: parent.selectedId };
        members.set(child.id, member);
        next.push(member);
      }
      frontier = next;
    }
    // Hidden children too (a continuation still being imported): they must not keep a dangling parent.
    const orphans = (await this.sessions.childrenOf(db, [...members.keys()], undefined, true)).filter(
      (child) => !members.has(child.id),
    );
    return { members, orphans, selected, includeCompressionChain };
  }

  /**
   * Locks every member of the plan (PostgreSQL: FOR UPDATE NOWAIT) and plans again until nothing
   * moved, so a compression of the same conversation can neither be in flight nor have committed
   * a child the plan did not see (docs/domain.md §5.1: a delete waits for or refuses a compress).
   * A member locked by another transaction answers 409 session_busy. SQLite transactions are
   * exclusive, so there the first plan is already stable.
   */
  async stabilize(tx: Tx, plan: DeletionPlan): Promise<DeletionPlan> {
    if (this.dialect !== 'postgres') return plan;
    let current = plan;
    for (let round = 0; round < 5; round++) {
      const locked = await this.sessions.lockNoWait(tx.db, [...current.members.keys()]);
      if (!locked) {
        throw new SessionBusyError('another change of this conversation (a compression) is in flight; retry');
      }
      const again = await this.plan(tx.db, current.selected, current.includeCompressionChain);
      if (samePlan(again, current)) return again;
      current = again;
    }
    throw new SessionBusyError('the conversation keeps changing under the delete; retry');
  }

  /** Members holding a live turn lease (a busy session is never removed). */
  busyMembers(plan: DeletionPlan): Member[] {
    const now = this.clock.now();
    return [...plan.members.values()].filter((member) => isBusy(member.row, now));
  }

  /** Carries out a plan inside `tx`. A plan with no members is a no-op: no receipt, no observer call. */
  async execute(tx: Tx, unstable: DeletionPlan, operation: DeletionOperation): Promise<DeletionOutcome> {
    if (unstable.members.size === 0) return { deletedIds: [], receipts: [], purging: [] };
    const plan = await this.stabilize(tx, unstable);
    if (this.busyMembers(plan).length > 0) throw new SessionBusyError('a session removed with it has a live turn');
    const { receipts, event, removedIds } = await this.writeReceipts(tx, plan, operation);
    await this.sessions.orphan(
      tx.db,
      plan.orphans.map((orphan) => orphan.id),
    );
    for (const participant of this.participants) await participant.remove(tx, removedIds);
    // A huge session leaves every reader now (hidden, its usage out of the figures) and its rows
    // afterwards, in chunks: the receipt still commits with the deletion everyone can observe.
    const above = operation.purgeLaterAbove ?? PURGE_LATER_ABOVE_MESSAGES;
    const huge =
      this.purge && !operation.rowsNow
        ? [...plan.members.values()]
            .filter((member) => Number(member.row.message_count) > above)
            .map((member) => member.row.id)
        : [];
    const now = removedIds.filter((id) => !huge.includes(id));
    await this.purgeLater(tx, huge);
    await this.messages.deleteForSessions(tx.db, now);
    await this.sessions.deleteByIds(tx.db, now);
    this.afterCommit(tx, event, operation.notice);
    return { deletedIds: removedIds, receipts, purging: huge };
  }

  /**
   * Hides sessions from every reader now (their usage out of the figures) and leaves their rows to
   * a purge in chunks: deferred work when the engine has it, and `purgeNow` for a caller that needs
   * the ids free. No receipt: the caller wrote one, or (an import's half-written session) nobody
   * ever saw the rows.
   */
  async purgeLater(tx: Tx, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sessions.hide(tx.db, ids, HIDDEN_FOR_DELETION);
    for (const id of ids) {
      await this.usageRollups.removeSession(tx.db, id);
      if (this.purge) await this.purge.deferred.enqueue(tx, DELETION_PURGE_WORK, id);
    }
  }

  /**
   * Profile repair: the plan's rows leave their profile for `targetProfile`. For everyone keyed by
   * (profile, id) that is a removal from the old profile, so it gets a receipt there — counting no
   * messages and no obligations, which move with the rows — and deletion observers hear it with
   * `reason: 'profile_repair'` and `toProfile`; move observers hear the move. The rows, messages
   * and postings themselves are kept under the new profile.
   */
  async relocate(
    tx: Tx,
    unstable: DeletionPlan,
    operation: DeletionOperation,
    targetProfile: string,
    retitle: (row: SessionRow) => Promise<string | null>,
  ): Promise<DeletionOutcome> {
    if (unstable.members.size === 0) return { deletedIds: [], receipts: [], purging: [] };
    const plan = await this.stabilize(tx, unstable);
    const { receipts, event, removedIds } = await this.writeReceipts(tx, plan, operation, true);
    const moving = new Set(removedIds);
    await this.sessions.orphan(
      tx.db,
      plan.orphans.map((orphan) => orphan.id),
    );
    // A moved row whose parent stays behind becomes a root in its new profile.
    const detached = [...plan.members.values()]
      .filter((member) => member.row.parent_session_id !== null && !moving.has(member.row.parent_session_id))
      .map((member) => member.row.id);
    await this.sessions.orphan(tx.db, detached);
    for (const participant of this.participants) {
      if (participant.relocate) await participant.relocate(tx, removedIds, targetProfile);
      else await participant.remove(tx, removedIds);
    }
    for (const member of plan.members.values()) {
      const title = member.row.title === null ? null : await retitle(member.row);
      await this.sessions.relocate(tx.db, member.row, targetProfile, title);
    }
    const departed: SessionDeletedEvent = { ...event, toProfile: targetProfile };
    const move: SessionMovedEvent = {
      operationId: event.operationId,
      reason: 'profile_repair',
      origin: event.origin,
      intent: event.intent,
      fromProfile: event.profile,
      toProfile: targetProfile,
      sessionId: event.sessionId,
      movedIds: event.deletedIds,
    };
    tx.afterCommit(() => {
      this.hooks.dispatchSessionDeleted(departed);
      this.hooks.dispatchSessionMoved(move);
      this.wakeups.local('receipts');
    });
    return { deletedIds: removedIds, receipts, purging: [] };
  }

  private async writeReceipts(tx: Tx, plan: DeletionPlan, operation: DeletionOperation, moving = false) {
    const members = [...plan.members.values()];
    const now = this.clock.now();
    const receipts: ReceiptRef[] = [];
    let event: SessionDeletedEvent | undefined;
    // One receipt per profile, so a member principal replays exactly its own profiles' history.
    const byProfile = new Map<string, Member[]>();
    for (const member of members) {
      const group = byProfile.get(member.row.profile) ?? [];
      group.push(member);
      byProfile.set(member.row.profile, group);
    }
    for (const [profile, group] of byProfile) {
      const ids = group.map((member) => member.row.id);
      const counts = await this.countsOf(tx, ids, moving);
      const operationId = this.ids.next();
      receipts.push(
        await this.writer.write(
          tx,
          {
            operationId,
            origin: operation.origin,
            intent: operation.intent,
            reason: operation.reason,
            profile,
            actor: { kind: operation.actor.kind, id: operation.actor.id },
            counts,
            identities: group.map(toIdentity),
          },
          now,
        ),
      );
      const selected = group.find((member) => member.role === 'selected') ?? group[0];
      const part: SessionDeletedEvent = {
        operationId,
        reason: operation.reason,
        origin: operation.origin,
        intent: operation.intent,
        profile,
        sessionId: selected.row.id,
        deletedIds: ids,
        byProfile: { [profile]: ids },
        receipts: [receipts[receipts.length - 1]],
      };
      // One observer call for the transaction, whatever the number of profiles (receipts) it spans.
      event = event ? mergeDeletionEvents(event, part) : part;
    }
    // Receipt watchers in every process wake when this commits.
    await this.wakeups.announceIn(tx.db, 'receipts');
    return { receipts, event: event!, removedIds: members.map((member) => member.row.id) };
  }

  private afterCommit(tx: Tx, event: SessionDeletedEvent, notice: DeletionNotice | undefined): void {
    tx.afterCommit(() => {
      if (notice) notice.add(event);
      else this.hooks.dispatchSessionDeleted(event);
      this.wakeups.local('receipts');
    });
  }

  /**
   * What a receipt counts for these sessions: every message row (hidden and rewound ones too),
   * routes, and the delivery obligations a deletion abandons. The delete preview asks the same.
   */
  async countsOf(tx: Tx, ids: string[], moving = false): Promise<ReceiptCounts> {
    return {
      sessions: ids.length,
      // A move removes no content: the messages go with the rows.
      messages: moving ? 0 : await this.messages.countForSessions(tx.db, ids),
      routes: await this.countParticipant(tx, 'routes', ids),
      // Obligations follow a moved session; only a deletion abandons them.
      deliveries: moving ? 0 : await this.countParticipant(tx, 'deliveries', ids),
      delegations: moving ? 0 : await this.countParticipant(tx, 'delegations', ids),
    };
  }

  private async countParticipant(tx: Tx, name: string, ids: string[]): Promise<number> {
    let total = 0;
    for (const participant of this.participants)
      if (participant.name === name) total += await participant.count(tx, ids);
    return total;
  }
}

function samePlan(a: DeletionPlan, b: DeletionPlan): boolean {
  const ids = (plan: DeletionPlan) =>
    [...plan.members.keys(), '|', ...plan.orphans.map((row) => row.id)].sort().join(',');
  return ids(a) === ids(b);
}

function toIdentity(member: Member): ReceiptIdentity {
  const row = member.row;
  return {
    id: row.id,
    profile: row.profile,
    source: row.source,
    createdSource: row.created_source,
    sessionKey: row.session_key,
    chatId: row.chat_id,
    chatType: row.chat_type,
    threadId: row.thread_id,
    parentSessionId: row.parent_session_id,
    lineageKind: row.lineage_kind as LineageKind | null,
    role: member.role,
  };
}
