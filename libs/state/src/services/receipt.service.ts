import type {
  DeletionReceipt,
  ReceiptConsumer,
  ReceiptLag,
  ReceiptListQuery,
  ReceiptPage,
  ReceiptWatchQuery,
  ReclaimRequest,
  ReclaimResponse,
  VerifyResponse,
} from '@statehouse/contracts';
import type { Db, Dialect } from '../db/database.js';
import { sleepUntilWoken } from '../db/sleep-until-woken.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { Wakeups } from '../db/wakeup.port.js';
import { META_ANCHOR_HASH, META_FLOOR } from '../domain/receipt-writer.js';
import { currentEpoch } from '../domain/store-epoch.js';
import { hashedDocument, ReceiptRepository, toReceipt } from '../repositories/receipt.repository.js';
import { ReceiptConsumerRepository, type ReceiptConsumerRow } from '../repositories/receipt-consumer.repository.js';
import { ReceiptProfileFloorRepository } from '../repositories/receipt-profile-floor.repository.js';
import { StoreMetaRepository } from '../repositories/store-meta.repository.js';
import { assertAdmin, principalKey, profileScope } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../shared/errors.js';
import { GENESIS_HASH, receiptHash } from '../shared/receipt-hash.js';
import { toDomainError } from '../shared/store-errors.js';

/** Floors of reclamations made before per-profile floors were recorded apply to every profile. */
const META_PROFILE_FLOOR_BASE = 'receipt_profile_floor_base';

/** A cursor below the reclaimed floor: the caller missed receipts and must resynchronise. */
export class CursorExpiredError extends DomainError {
  constructor(readonly floor: number) {
    super(
      'cursor_expired',
      `receipts up to sequence ${floor} were reclaimed; resume from ${floor} after a full resync`,
      {
        floor,
      },
    );
  }
}

/**
 * A cursor from another store epoch (docs/domain.md §5.3.6): the store was restored from a backup
 * since, and the sequences after the backup are issued again with other receipts. The consumer must
 * resynchronise from scratch under `epoch`, never resume from its cursor.
 */
export class EpochChangedError extends DomainError {
  constructor(readonly epoch: string) {
    super(
      'epoch_changed',
      `the store epoch is now ${epoch} (a restore): cursors of another epoch mean other receipts; resync from the start`,
      { epoch },
    );
  }
}

export type WatchEvent =
  | { type: 'receipt'; receipt: DeletionReceipt }
  | { type: 'bookmark'; highWater: number; epoch: string }
  | { type: 'expired'; floor: number };

export interface WatchOptions {
  signal: AbortSignal;
  /** How often another process's commits are looked for. */
  pollMs?: number;
  /** An idle stream still says where it stands at least this often. */
  bookmarkMs?: number;
}

const WATCH_PAGE = 500;
const VERIFY_PAGE = 1000;

/**
 * The durable cross-process deletion feed: replay from a cursor, lookup, watch, reclamation with
 * a floor (never a silent skip), consumer acknowledgements, and verification of the hash chain.
 */
export class ReceiptService {
  private readonly receipts: ReceiptRepository;
  private readonly consumers = new ReceiptConsumerRepository();
  private readonly profileFloors = new ReceiptProfileFloorRepository();
  private readonly meta = new StoreMetaRepository();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    dialect: Dialect,
    private readonly wakeups: Wakeups,
  ) {
    this.receipts = new ReceiptRepository(dialect);
  }

  /**
   * Replay from a cursor. `highWater` and `floor` describe what the caller may see: store-wide for
   * a principal of every profile, within its own profiles for a member — so the list tells a
   * tenant nothing about other tenants' deletions, and only the reclamation of its own receipts
   * expires its cursor.
   */
  async list(ctx: OperationContext, query: ReceiptListQuery): Promise<ReceiptPage> {
    try {
      const epoch = await this.epochFor(query.epoch);
      const scope = profileScope(ctx.principal);
      const floor = await this.floorFor(this.db, scope);
      const newest = query.order === 'newest';
      // A replay below the floor would silently skip reclaimed receipts; reading newest first cannot.
      if (!newest && query.after < floor) throw new CursorExpiredError(floor);
      const rows = await this.receipts.list(this.db, {
        after: newest ? Math.max(query.after, floor) : query.after,
        before: newest ? (query.before ?? Number.MAX_SAFE_INTEGER) : undefined,
        limit: query.limit + 1,
        profiles: scope,
        profile: query.profile,
        intent: query.intent,
        origin: query.origin,
      });
      const page = rows.slice(0, query.limit);
      const highWater = Math.max(await this.receipts.maxSequence(this.db, scope), floor);
      return {
        items: page.map(toReceipt),
        nextCursor: rows.length > query.limit ? String(page[page.length - 1].sequence) : null,
        highWater,
        floor,
        epoch,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** The store epoch (docs/domain.md §5.3.6). */
  async epoch(): Promise<string> {
    try {
      return await currentEpoch(this.db);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Refuses a cursor from another epoch (`expected`, as the consumer last saw it): answers the
   * current epoch. Without `expected` the consumer takes its chances (and reads the epoch back).
   */
  async assertEpoch(expected: string | undefined): Promise<string> {
    try {
      return await this.epochFor(expected);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  private async epochFor(expected: string | undefined): Promise<string> {
    const epoch = await currentEpoch(this.db);
    if (expected !== undefined && expected !== epoch) throw new EpochChangedError(epoch);
    return epoch;
  }

  async get(ctx: OperationContext, operationId: string): Promise<DeletionReceipt> {
    try {
      const row = await this.receipts.findByOperationId(this.db, operationId);
      const scope = profileScope(ctx.principal);
      if (!row || (scope !== null && !scope.includes(row.profile))) throw new NotFoundError('receipt');
      return toReceipt(row);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Receipts after `after` as they commit — in this process at once, from other processes within
   * `pollMs` — with a bookmark of the high-water mark when idle, and `expired` if the cursor falls
   * below the floor (then the stream ends).
   */
  async *watch(ctx: OperationContext, query: ReceiptWatchQuery, options: WatchOptions): AsyncGenerator<WatchEvent> {
    const pollMs = options.pollMs ?? 1000;
    const bookmarkMs = options.bookmarkMs ?? 15_000;
    const scope = profileScope(ctx.principal);
    // A store is never restored under a running process: the epoch of the stream's start holds.
    const epoch = await this.assertEpoch(query.epoch);
    let cursor = query.after;
    let lastSent = this.clock.now();
    let firstPass = true;
    // Subscribed for the stream's whole life: a wake-up that lands while the store is being read
    // is remembered (woken) and the next pass runs at once, instead of waiting for the poll.
    let woken = false;
    let wake: (() => void) | undefined;
    const unsubscribe = this.wakeups.subscribe('receipts', () => {
      woken = true;
      wake?.();
    });
    try {
      while (!options.signal.aborted) {
        woken = false;
        const floor = await this.floorFor(this.db, scope);
        if (cursor < floor) {
          yield { type: 'expired', floor };
          return;
        }
        const highWater = Math.max(await this.receipts.maxSequence(this.db, scope), floor);
        let sent = false;
        for (;;) {
          const rows = await this.receipts.list(this.db, {
            after: cursor,
            limit: WATCH_PAGE,
            profiles: scope,
            profile: query.profile,
            intent: query.intent,
            origin: query.origin,
          });
          for (const row of rows) {
            yield { type: 'receipt', receipt: toReceipt(row) };
            cursor = Number(row.sequence);
            sent = true;
          }
          if (rows.length < WATCH_PAGE) break;
        }
        // Everything up to the high-water mark read before listing is committed and was seen.
        cursor = Math.max(cursor, highWater);
        if (sent) lastSent = Date.now();
        if (firstPass || Date.now() - lastSent >= bookmarkMs) {
          yield { type: 'bookmark', highWater: cursor, epoch };
          lastSent = Date.now();
          firstPass = false;
        }
        if (woken) continue;
        await sleepUntilWoken(Math.min(pollMs, bookmarkMs), options.signal, (waker) => {
          wake = waker;
        });
      }
    } finally {
      unsubscribe();
    }
  }

  /**
   * Deletes receipts through a sequence. `safe` never passes the lowest acknowledged consumer
   * cursor; `force` does. The floor only rises; sequences are never reused.
   */
  async reclaim(ctx: OperationContext, request: ReclaimRequest): Promise<ReclaimResponse> {
    assertAdmin(ctx.principal);
    return this.uow.run(ctx, async (tx) => {
      await this.receipts.lockChain(tx.db);
      const floor = await this.floorIn(tx.db);
      const highWater = Math.max(await this.receipts.maxSequence(tx.db), floor);
      let target = Math.min(request.throughSequence, highWater);
      let limitedBy: string | null = null;
      if (request.mode === 'safe') {
        const lowest = await this.consumers.lowest(tx.db);
        if (lowest && Number(lowest.cursor) < target) {
          target = Number(lowest.cursor);
          limitedBy = lowest.name;
        }
      }
      if (target <= floor) return { reclaimed: 0, floor, limitedBy };
      // Watchers below the new floor learn it at once, in every process.
      await this.wakeups.announceIn(tx.db, 'receipts');
      tx.afterCommit(() => this.wakeups.local('receipts'));
      const anchor = await this.receipts.lastAtOrBelow(tx.db, target);
      if (anchor) await this.meta.set(tx.db, META_ANCHOR_HASH, anchor.hash);
      for (const { profile, max } of await this.receipts.profileMaxima(tx.db, floor, target)) {
        await this.profileFloors.raise(tx.db, profile, max);
      }
      const reclaimed = await this.receipts.deleteThrough(tx.db, target);
      await this.meta.set(tx.db, META_FLOOR, String(target));
      return { reclaimed, floor: target, limitedBy };
    });
  }

  /**
   * Registers a consumer or acknowledges how far it has processed (admin only: a consumer's cursor
   * decides what safe reclamation may delete). Acknowledgements never move back; who registered
   * the consumer is kept.
   */
  async acknowledge(
    ctx: OperationContext,
    name: string,
    cursor: number,
    expectedEpoch?: string,
  ): Promise<ReceiptConsumer> {
    assertAdmin(ctx.principal);
    return this.uow.run(ctx, async (tx) => {
      // An acknowledgement is of a cursor in an epoch: one of another epoch names other receipts.
      const epoch = await currentEpoch(tx.db);
      if (expectedEpoch !== undefined && expectedEpoch !== epoch) throw new EpochChangedError(epoch);
      const highWater = Math.max(await this.receipts.maxSequence(tx.db), await this.floorIn(tx.db));
      if (cursor > highWater) throw new ValidationError(`cursor ${cursor} is beyond the high-water mark ${highWater}`);
      const existing = await this.consumers.find(tx.db, name);
      // Never back within an epoch; a consumer resynchronising after a restore starts over in the new one.
      if (existing && existing.epoch === epoch && Number(existing.cursor) > cursor) {
        throw new ConflictError(
          `consumer ${name} already acknowledged ${existing.cursor}; acknowledgements never move back`,
        );
      }
      const now = this.clock.now();
      const principal = principalKey(ctx.principal);
      const row: ReceiptConsumerRow = {
        name,
        cursor,
        principal,
        updated_at: now,
        created_by: existing ? existing.created_by : principal,
        created_at: existing ? existing.created_at : now,
        epoch,
      };
      // The check above read before any lock: a concurrent acknowledgement may have moved the
      // cursor past this one since. The write itself only moves forward.
      if (!(await this.consumers.upsertForward(tx.db, row))) {
        const current = await this.consumers.find(tx.db, name);
        throw new ConflictError(
          `consumer ${name} already acknowledged ${current?.cursor ?? 'further'}; acknowledgements never move back`,
        );
      }
      return toConsumer((await this.consumers.find(tx.db, name))!);
    });
  }

  async listConsumers(ctx: OperationContext): Promise<ReceiptConsumer[]> {
    assertAdmin(ctx.principal);
    try {
      return (await this.consumers.list(this.db)).map(toConsumer);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Unregisters a consumer (admin): a gone consumer no longer holds safe reclamation back. */
  async deleteConsumer(ctx: OperationContext, name: string): Promise<void> {
    assertAdmin(ctx.principal);
    await this.uow.run(ctx, async (tx) => {
      if (!(await this.consumers.delete(tx.db, name))) throw new NotFoundError('receipt consumer');
    });
  }

  /** How far each registered consumer trails the feed: receipts after its cursor and the age of the oldest. */
  async lag(ctx: OperationContext): Promise<ReceiptLag> {
    assertAdmin(ctx.principal);
    try {
      const now = this.clock.now();
      const floor = await this.floor();
      const highWater = Math.max(await this.receipts.maxSequence(this.db), floor);
      const consumers = [];
      for (const row of await this.consumers.list(this.db)) {
        const pending = await this.receipts.pendingAfter(this.db, Number(row.cursor));
        consumers.push({
          name: row.name,
          cursor: Number(row.cursor),
          principal: row.principal,
          updatedAt: toIso(Number(row.updated_at)),
          behind: pending.count,
          oldestPendingAt: pending.firstCreatedAt === null ? null : toIso(pending.firstCreatedAt),
          lagSeconds: pending.firstCreatedAt === null ? null : Math.max(0, (now - pending.firstCreatedAt) / 1000),
        });
      }
      return { at: toIso(now), highWater, floor, consumers };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Walks the chain from the reclaimed anchor: every prevHash links, every hash recomputes. */
  async verify(ctx: OperationContext): Promise<VerifyResponse> {
    assertAdmin(ctx.principal);
    try {
      let expectedPrev = (await this.meta.get(this.db, META_ANCHOR_HASH)) ?? GENESIS_HASH;
      let after = 0;
      let checked = 0;
      for (;;) {
        const rows = await this.receipts.list(this.db, { after, limit: VERIFY_PAGE, profiles: null });
        for (const row of rows) {
          const receipt = toReceipt(row);
          if (row.prev_hash !== expectedPrev || receiptHash(row.prev_hash, hashedDocument(receipt)) !== row.hash) {
            return { ok: false, checked, firstBadSequence: receipt.sequence };
          }
          expectedPrev = row.hash;
          checked++;
          after = receipt.sequence;
        }
        if (rows.length < VERIFY_PAGE) return { ok: true, checked };
      }
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async floor(): Promise<number> {
    return this.floorIn(this.db);
  }

  /** The store-wide floor (scope null), or the highest floor of these profiles' receipts. */
  private async floorFor(db: Db, scope: string[] | null): Promise<number> {
    if (scope === null) return this.floorIn(db);
    const base = Number((await this.meta.get(db, META_PROFILE_FLOOR_BASE)) ?? 0);
    return Math.max(base, await this.profileFloors.highestOf(db, scope));
  }

  private async floorIn(db: Db | Parameters<StoreMetaRepository['get']>[0]): Promise<number> {
    return Number((await this.meta.get(db, META_FLOOR)) ?? 0);
  }
}

function toConsumer(row: ReceiptConsumerRow): ReceiptConsumer {
  return {
    name: row.name,
    cursor: Number(row.cursor),
    epoch: row.epoch,
    principal: row.principal,
    updatedAt: toIso(Number(row.updated_at)),
    createdBy: row.created_by ?? row.principal,
    createdAt: toIso(Number(row.created_at ?? row.updated_at)),
  };
}
