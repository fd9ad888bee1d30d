import type {
  BulkDeleteRequest,
  BulkDeleteResponse,
  DeletePreview,
  DeletePreviewRequest,
  DeleteSessionQuery,
  DeleteSessionResponse,
  DeletionOrigin,
  DeletionReason,
  LineageKind,
  MaintenanceResult,
  NeverActivePruneRequest,
  ReceiptRef,
  RetentionPruneRequest,
} from '@statehouse/contracts';
import type { BetweenChunks } from '../db/chunks.js';
import type { Db, Executor, SessionRow } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import type { DeletionNotice } from '../domain/deletion-notice.js';
import { assertDestructiveAllowed, requireDestructivePreconditions, requireIfMatch } from '../domain/session-guards.js';
import { DeletionCandidatesRepository } from '../repositories/deletion-candidates.repository.js';
import { LineageRepository } from '../repositories/lineage.repository.js';
import { isBusy, SessionRepository } from '../repositories/session.repository.js';
import { assertAdmin, canAccessProfile } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import {
  ConflictError,
  NotFoundError,
  RevisionConflictError,
  SessionBusyError,
  ValidationError,
} from '../shared/errors.js';
import { toDomainError } from '../shared/store-errors.js';
import type { DeletionEngine, DeletionPlan } from './deletion.engine.js';
import {
  deletionChunkSizer,
  INITIAL_CHUNK_MESSAGES,
  runInChunks,
  type SelectionGroup,
  selectionGroups,
} from './deletion-chunks.js';

const DAY_MS = 24 * 60 * 60 * 1000;
export const MAX_RETENTION_DAYS = 36_500;
/** Sessions a maintenance pass considers at most; a scheduler simply runs again. */
export const MAINTENANCE_BATCH = 1000;
export const GHOST_AGE_MS = DAY_MS;

type SkipReason = BulkDeleteResponse['skipped'][number]['reason'];

/** Every deletion path of docs/domain.md §5.1, each a selection handed to the one engine in one transaction. */
export class DeletionService {
  private readonly sessions: SessionRepository;
  private readonly candidates = new DeletionCandidatesRepository();
  private readonly lineage = new LineageRepository();
  /** Sizes every chunked deletion of this service from the last ones (a retention pass's batches too). */
  private readonly chunkSizer = deletionChunkSizer();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly engine: DeletionEngine,
    sqlDialectPort: SqlDialect,
    /** Where selections and previews read (the read pool on SQLite). */
    private readonly reads: Db,
    /** The pause between chunks of a chunked deletion (jobs pass their own, which also renews the lease). */
    private readonly between: BetweenChunks,
  ) {
    this.sessions = new SessionRepository(sqlDialectPort);
  }

  /** Collects the one observer call of an operation made of several of this service's calls. */
  notice(): DeletionNotice {
    return this.engine.notice();
  }

  /**
   * Single delete (with the compression chain when asked), or `ifEmpty`: only an empty,
   * childless, untitled, idle session goes, as `empty_discard`.
   */
  async deleteOne(
    ctx: OperationContext,
    id: string,
    query: DeleteSessionQuery,
    preconditions: Preconditions,
  ): Promise<DeleteSessionResponse> {
    if (query.ifEmpty) requireIfMatch(preconditions);
    else requireDestructivePreconditions(preconditions);
    return this.uow.run(ctx, async (tx) => {
      const row = await this.sessions.findByIdForUpdate(tx.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
      if (query.ifEmpty) {
        if (Number(row.revision) !== preconditions.ifMatch) throw new RevisionConflictError(Number(row.revision));
        await this.assertDiscardable(tx.db, row);
        const plan = await this.engine.plan(tx.db, [row], false);
        const outcome = await this.engine.execute(tx, plan, this.operation(ctx, 'empty_discard', 'empty'));
        return { deletedIds: outcome.deletedIds, receipt: outcome.receipts[0] ?? null };
      }
      assertDestructiveAllowed(row, preconditions, this.clock.now());
      const plan = await this.engine.plan(tx.db, [row], query.includeCompressionChain);
      const busy = this.engine.busyMembers(plan);
      if (busy.length > 0) throw new SessionBusyError(`session ${busy[0].row.id} (removed with it) has a live turn`);
      const outcome = await this.engine.execute(tx, plan, this.operation(ctx, userOrigin(ctx), 'user'));
      return { deletedIds: outcome.deletedIds, receipt: outcome.receipts[0] ?? null };
    });
  }

  /**
   * Bulk delete of selected ids (≤ 500): duplicates collapse; unknown, fenced, stale and busy
   * items are skipped and reported; the rest goes in one transaction.
   */
  async bulkDelete(ctx: OperationContext, request: BulkDeleteRequest): Promise<BulkDeleteResponse> {
    const seen = new Set<string>();
    const wanted = request.items.filter((item) => !seen.has(item.id) && seen.add(item.id));
    let groups: SelectionGroup[];
    try {
      groups = selectionGroups(
        await this.engine.plan(
          this.reads,
          await this.sessions.listByIds(this.reads, [...seen]),
          request.includeCompressionChain,
        ),
      );
    } catch (error) {
      throw toDomainError(error);
    }
    const total = groups.reduce((sum, group) => sum + group.messages, 0);
    // The common case is one transaction with its idempotency record, as every other mutation.
    if (total <= INITIAL_CHUNK_MESSAGES) {
      return this.uow.run(ctx, async (tx) => {
        const result = await this.bulkChunk(tx, ctx, wanted, request.includeCompressionChain, new Set());
        return { ...result, receipt: result.receipts[0] ?? null };
      });
    }
    // A large selection goes in chunks (each its own transaction and receipts); ids that no group
    // knows (unknown, fenced) join the first chunk, which reports them.
    const known = new Set(groups.flatMap((group) => group.ids));
    const unknownIds = [...seen].filter((id) => !known.has(id));
    if (groups.length === 0) groups = [{ ids: [], messages: 0 }];
    groups[0] = { ids: [...groups[0].ids, ...unknownIds], messages: groups[0].messages };
    const byId = new Map(wanted.map((item) => [item.id, item]));
    const removed = new Set<string>();
    const deletedIds: string[] = [];
    const skipped: BulkDeleteResponse['skipped'] = [];
    const receipts: ReceiptRef[] = [];
    const chunkCtx: OperationContext = { ...ctx, idempotency: undefined };
    // Observers hear the whole bulk delete once, after its last chunk (docs/domain.md §5.2).
    const notice = this.engine.notice();
    await notice.around(() =>
      this.inChunks(groups, undefined, async (ids) => {
        const items = ids.flatMap((id) => {
          const item = byId.get(id);
          return item ? [item] : [];
        });
        const result = await this.uow.run(chunkCtx, (tx) =>
          this.bulkChunk(tx, ctx, items, request.includeCompressionChain, removed, notice),
        );
        for (const id of result.deletedIds) removed.add(id);
        deletedIds.push(...result.deletedIds);
        skipped.push(...result.skipped);
        receipts.push(...result.receipts);
        return result.deletedIds.length;
      }),
    );
    return {
      deletedIds,
      skippedIds: skipped.map((skip) => skip.id),
      skipped,
      receipt: receipts[0] ?? null,
      receipts,
    };
  }

  /** One transaction of a bulk delete: fence, check and remove these items. */
  private async bulkChunk(
    tx: Tx,
    ctx: OperationContext,
    items: BulkDeleteRequest['items'],
    includeCompressionChain: boolean,
    removedEarlier: ReadonlySet<string>,
    notice?: DeletionNotice,
  ) {
    const now = this.clock.now();
    const skipped: { id: string; reason: SkipReason }[] = [];
    const selected: SessionRow[] = [];
    const rows = new Map(
      (
        await this.sessions.listByIds(
          tx.db,
          items.map((item) => item.id),
        )
      ).map((row) => [row.id, row]),
    );
    for (const item of items) {
      const row = rows.get(item.id);
      // Taken with an earlier chunk (a delegate or chain member of another item): done, not skipped.
      if (!row && removedEarlier.has(item.id)) continue;
      if (!row || !canAccessProfile(ctx.principal, row.profile)) skipped.push({ id: item.id, reason: 'not_found' });
      else if (Number(row.revision) !== item.revision) skipped.push({ id: item.id, reason: 'revision_conflict' });
      else if (Number(row.generation) !== item.generation) skipped.push({ id: item.id, reason: 'stale_generation' });
      else if (isBusy(row, now)) skipped.push({ id: item.id, reason: 'busy' });
      else selected.push(row);
    }
    let plan = await this.engine.plan(tx.db, selected, includeCompressionChain);
    const busySelections = new Set(this.engine.busyMembers(plan).map((member) => member.selectedId));
    if (busySelections.size > 0) {
      for (const id of busySelections) skipped.push({ id, reason: 'busy' });
      plan = await this.engine.plan(
        tx.db,
        selected.filter((row) => !busySelections.has(row.id)),
        includeCompressionChain,
      );
    }
    const outcome = await this.engine.execute(tx, plan, { ...this.operation(ctx, userOrigin(ctx), 'user'), notice });
    return {
      deletedIds: outcome.deletedIds,
      skippedIds: skipped.map((skip) => skip.id),
      skipped,
      receipts: outcome.receipts,
    };
  }

  /** Exactly what a delete of these ids would remove, and what it would leave orphaned. */
  async preview(ctx: OperationContext, request: DeletePreviewRequest): Promise<DeletePreview> {
    try {
      const rows = (await this.sessions.listByIds(this.db, request.ids)).filter((row) =>
        canAccessProfile(ctx.principal, row.profile),
      );
      const found = new Set(rows.map((row) => row.id));
      const plan = await this.engine.plan(this.db, rows, request.includeCompressionChain);
      const now = this.clock.now();
      const members = [...plan.members.values()];
      return {
        sessions: members.map(({ row, role }) => ({
          id: row.id,
          role,
          profile: row.profile,
          title: row.title,
          preview: row.preview,
          lineageKind: row.lineage_kind as LineageKind | null,
          parentSessionId: row.parent_session_id,
          messageCount: Number(row.message_count),
          busy: isBusy(row, now),
          revision: Number(row.revision),
          generation: Number(row.generation),
        })),
        orphaned: plan.orphans.map((row) => ({ id: row.id, lineageKind: row.lineage_kind as LineageKind | null })),
        missingIds: [...new Set(request.ids)].filter((id) => !found.has(id)),
        // The receipt's own counting, so the preview and the receipt agree (docs/domain.md §5.1.6).
        counts: await this.uow.readOnly((tx) =>
          this.engine.countsOf(
            tx,
            members.map((member) => member.row.id),
          ),
        ),
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Ended sessions without messages that nobody archived. */
  async emptySweep(ctx: OperationContext, dryRun: boolean, profile?: string): Promise<MaintenanceResult> {
    assertAdmin(ctx.principal);
    return this.maintain(ctx, dryRun, 'empty_sweep', 'empty_sweep', async (db, ids) => ({
      selected: await this.candidates.emptyEnded(db, MAINTENANCE_BATCH, ids, profile),
      chains: false,
    }));
  }

  /** Untitled, ended, empty sessions older than a day. */
  async ghostPrune(ctx: OperationContext, dryRun: boolean, profile?: string): Promise<MaintenanceResult> {
    assertAdmin(ctx.principal);
    const before = this.clock.now() - GHOST_AGE_MS;
    return this.maintain(ctx, dryRun, 'ghost_prune', 'ghost_prune', async (db, ids) => ({
      selected: await this.candidates.ghosts(db, before, MAINTENANCE_BATCH, ids, profile),
      chains: false,
    }));
  }

  /** Sessions made for a chat that never saw a message, older than the window. */
  async neverActivePrune(ctx: OperationContext, request: NeverActivePruneRequest): Promise<MaintenanceResult> {
    assertAdmin(ctx.principal);
    assertRetentionWindow(request.olderThanDays);
    const before = this.clock.now() - request.olderThanDays * DAY_MS;
    return this.maintain(ctx, request.dryRun, 'never_active_prune', 'prune', async (db, ids) => ({
      selected: await this.candidates.neverActiveKeyed(db, before, MAINTENANCE_BATCH, ids),
      chains: false,
    }));
  }

  /**
   * Retention: sessions ended and idle before the cutoff, pinned and living ones kept (docs/domain.md
   * §5.1.5), whole compression lineages only (a chain goes when every segment qualifies, never split).
   */
  async retentionPrune(
    ctx: OperationContext,
    request: RetentionPruneRequest,
    between?: (lastChunkMs: number) => Promise<void>,
    /** A pass over several profiles tells observers once, at its end (the scheduled retention pass). */
    notice?: DeletionNotice,
  ): Promise<MaintenanceResult> {
    assertAdmin(ctx.principal);
    assertRetentionWindow(request.olderThanDays);
    const cutoff = this.clock.now() - request.olderThanDays * DAY_MS;
    return this.maintain(
      ctx,
      request.dryRun,
      'retention',
      'prune',
      async (db, ids) => {
        // Re-checked chunks ask for the selected chain roots; their members qualify with them.
        const candidates = await this.candidates.retentionCandidates(
          db,
          { cutoff, now: this.clock.now() },
          { profile: request.profile, source: request.source },
          MAINTENANCE_BATCH,
          ids === undefined ? undefined : await this.withChainMembers(db, ids),
        );
        const eligible = new Map(candidates.map((row) => [row.id, row]));
        const roots = await this.lineage.chainRootsOf(db, [...eligible.keys()]);
        const selected: SessionRow[] = [];
        const decided = new Set<string>();
        for (const row of candidates) {
          const rootId = roots.get(row.id)?.id ?? row.id;
          if (decided.has(rootId)) continue;
          decided.add(rootId);
          const members = await this.lineage.compressionChainMembers(db, rootId);
          if (members.every((id) => eligible.has(id))) selected.push(eligible.get(rootId)!);
        }
        return {
          selected: ids === undefined ? selected : selected.filter((row) => ids.includes(row.id)),
          chains: true,
        };
      },
      between,
      notice,
    );
  }

  private async withChainMembers(db: Executor, rootIds: readonly string[]): Promise<string[]> {
    const all = new Set(rootIds);
    for (const rootId of rootIds) for (const id of await this.lineage.compressionChainMembers(db, rootId)) all.add(id);
    return [...all];
  }

  /**
   * A maintenance path: the selection is read once, then removed in chunks sized to a write-lock
   * budget — each chunk its own transaction with its own receipts, re-checking its rows against
   * the same predicate inside the transaction (`select` narrowed to the chunk's ids), so a row
   * that changed meanwhile is left alone. A dry run plans the whole selection and writes nothing.
   */
  private async maintain(
    ctx: OperationContext,
    dryRun: boolean,
    origin: DeletionOrigin,
    reason: DeletionReason,
    select: (db: Executor, ids?: readonly string[]) => Promise<{ selected: SessionRow[]; chains: boolean }>,
    between?: (lastChunkMs: number) => Promise<void>,
    /** Given by a caller whose operation spans several passes: it tells observers itself. */
    outerNotice?: DeletionNotice,
  ): Promise<MaintenanceResult> {
    const planFor = async (db: Executor, ids?: readonly string[]): Promise<DeletionPlan> => {
      const { selected, chains } = await select(db, ids);
      const plan = await this.engine.plan(db, selected, chains);
      // A busy lineage is left for the next pass.
      const busy = new Set(this.engine.busyMembers(plan).map((member) => member.selectedId));
      return busy.size === 0
        ? plan
        : this.engine.plan(
            db,
            selected.filter((row) => !busy.has(row.id)),
            chains,
          );
    };
    let whole: DeletionPlan;
    try {
      whole = await planFor(this.reads);
    } catch (error) {
      throw toDomainError(error);
    }
    const candidates = [...whole.members.keys()];
    if (dryRun) return { dryRun, candidates, deletedIds: [], receipt: null, receipts: [] };
    const deletedIds: string[] = [];
    const receipts: ReceiptRef[] = [];
    // The chunks write no idempotency record of their own: the caller records the whole answer.
    const chunkCtx: OperationContext = { ...ctx, idempotency: undefined };
    // However many chunks it takes, observers hear the pass once, after its last commit.
    const notice = outerNotice ?? this.engine.notice();
    const chunks = () =>
      this.inChunks(selectionGroups(whole), between, async (group) => {
        const outcome = await this.uow.run(chunkCtx, async (tx: Tx) => {
          const plan = await planFor(tx.db, group);
          return this.engine.execute(tx, plan, { ...this.operation(ctx, origin, reason), notice });
        });
        deletedIds.push(...outcome.deletedIds);
        receipts.push(...outcome.receipts);
        return outcome.deletedIds.length;
      });
    await (outerNotice ? chunks() : notice.around(chunks));
    return { dryRun, candidates, deletedIds, receipt: receipts[0] ?? null, receipts };
  }

  private inChunks(
    groups: SelectionGroup[],
    between: ((lastChunkMs: number) => Promise<void>) | undefined,
    work: (ids: string[]) => Promise<unknown>,
  ): Promise<void> {
    return runInChunks(groups, between ?? this.between, work, this.chunkSizer);
  }

  private async assertDiscardable(db: Executor, row: SessionRow): Promise<void> {
    const reasons: string[] = [];
    if (await this.candidates.hasMessages(db, row.id)) reasons.push('it has messages');
    if (await this.candidates.hasChildren(db, row.id)) reasons.push('it has child sessions');
    if (row.title !== null) reasons.push('it has a title');
    if (isBusy(row, this.clock.now())) reasons.push('it has a live turn');
    if (reasons.length > 0) throw new ConflictError(`not an empty session: ${reasons.join(', ')}`);
  }

  private operation(ctx: OperationContext, origin: DeletionOrigin, reason: DeletionReason) {
    return {
      origin,
      reason,
      intent: reason === 'user' ? ('explicit_user' as const) : ('maintenance' as const),
      actor: ctx.principal,
    };
  }
}

/**
 * A retention window is a whole number of days, zero or more (docs/domain.md §5.1): a negative one
 * would put the cutoff in the future and prune what just ended. Refused here, whoever calls.
 */
export function assertRetentionWindow(days: number): void {
  if (!Number.isInteger(days) || days < 0 || days > MAX_RETENTION_DAYS) {
    throw new ValidationError(`a retention window is a whole number of days from 0 to ${MAX_RETENTION_DAYS}`, [
      { path: 'olderThanDays', message: 'must be an integer from 0 to 36500' },
    ]);
  }
}

/** The server authors the origin from how the caller came in — no wire field can choose it. */
export function userOrigin(ctx: OperationContext): DeletionOrigin {
  return ctx.channel === 'dashboard' ? 'user_dashboard' : 'user_api';
}
