import { randomUUID } from 'node:crypto';
import type { Gateway, GatewayHeartbeat, GatewayPage, ListGatewaysQuery, LivenessSweep } from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { GatewayRepository, type GatewayRow } from '../repositories/gateway.repository.js';
import { JobLeaseRepository } from '../repositories/job-lease.repository.js';
import { ProfileRepository } from '../repositories/profile.repository.js';
import { assertAdmin, canAccessProfile, profileScope } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { RuntimeWindows } from '../shared/runtime.js';
import { toDomainError } from '../shared/store-errors.js';
import type { HandoffService } from './handoff.service.js';
import type { JobDefinition } from './job.service.js';

/** (profile, id) of the last gateway of a page. */
const GATEWAY_CURSOR = cursorShape(CursorPart.text, CursorPart.text);

export const LIVENESS_SWEEP_JOB = 'liveness-sweep';
const SWEEP_LEASE_MS = 5 * 60 * 1000;
/** Rows ended per transaction, and transactions per sweep: long sweeps are chunked. */
const REAP_BATCH = 200;
const MAX_REAP_PASSES = 50;
/** The recoverable end a sweep writes (docs/domain.md §4.3): the next resolve revives the row. */
export const ORPHAN_REAP_REASON = 'startup_orphan_reap';

/**
 * Gateway liveness (docs/domain.md §10): processes heartbeat under an id; sessions record the
 * gateway that owns them; a sweep (single-flight across processes) ends the open rows of gateways
 * that stopped heartbeating — never a row of a live gateway or under a live turn lease — and
 * expires handoffs stuck in `running`.
 */
export class GatewayService {
  private readonly gateways = new GatewayRepository();
  private readonly leases = new JobLeaseRepository();
  private readonly profiles = new ProfileRepository();
  /**
   * When this process opened the store. A gateway that has not beaten since is not judged silent
   * until the process has listened for a whole liveness window: after an outage of the API itself
   * every gateway looks silent, though each one was only unable to reach it (docs/domain.md §10.3).
   */
  private readonly listeningSince: number;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly windows: RuntimeWindows,
    private readonly handoff: HandoffService,
    private readonly logger: Logger,
  ) {
    this.listeningSince = clock.now();
  }

  /** Registers the gateway on its first heartbeat; afterwards records that it is alive. */
  async heartbeat(ctx: OperationContext, id: string, beat: GatewayHeartbeat): Promise<Gateway> {
    if (!canAccessProfile(ctx.principal, beat.profile)) throw new NotFoundError('profile');
    const startedAt = typeof beat.startedAt === 'number' ? beat.startedAt : Date.parse(beat.startedAt);
    if (!Number.isFinite(startedAt)) throw new ValidationError('startedAt is not a valid instant');
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const existing = await this.gateways.find(tx.db, id);
      if (existing && existing.profile !== beat.profile) {
        if (!canAccessProfile(ctx.principal, existing.profile)) throw new NotFoundError('gateway');
        throw new ConflictError(`gateway ${id} is registered in profile ${existing.profile}`);
      }
      if (!existing) {
        await this.profiles.ensure(tx.db, beat.profile, now);
        await this.gateways.insert(tx.db, {
          id,
          profile: beat.profile,
          host: beat.host,
          pid: beat.pid,
          started_at: startedAt,
          registered_at: now,
          last_seen_at: now,
        });
      } else {
        // An incarnation never goes back: a late heartbeat of a dead predecessor cannot revive it.
        const incarnation = Math.max(startedAt, Number(existing.started_at));
        await this.gateways.heartbeat(tx.db, id, { host: beat.host, pid: beat.pid, startedAt: incarnation, now });
      }
      const row = (await this.gateways.find(tx.db, id))!;
      const counts = await this.gateways.openSessionCounts(tx.db, [id]);
      return this.toGateway(row, counts.get(id) ?? 0, now);
    });
  }

  async get(ctx: OperationContext, id: string): Promise<Gateway> {
    try {
      const row = await this.gateways.find(this.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('gateway');
      const counts = await this.gateways.openSessionCounts(this.db, [id]);
      return this.toGateway(row, counts.get(id) ?? 0, this.clock.now());
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Owner-fenced list with last-seen and liveness, keyset by (profile, id). */
  async list(ctx: OperationContext, query: ListGatewaysQuery): Promise<GatewayPage> {
    const livenessWindowSeconds = Math.round(this.windows.gatewayTimeoutMs / 1000);
    try {
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) {
        return { items: [], nextCursor: null, livenessWindowSeconds };
      }
      const after = query.cursor ? decodeCursor(query.cursor, GATEWAY_CURSOR) : undefined;
      const rows = await this.gateways.list(this.db, {
        profiles: profileScope(ctx.principal),
        profile: query.profile,
        after,
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const counts = await this.gateways.openSessionCounts(
        this.db,
        page.map((row) => row.id),
      );
      const now = this.clock.now();
      const last = page[page.length - 1];
      return {
        items: page.map((row) => this.toGateway(row, counts.get(row.id) ?? 0, now)),
        nextCursor: rows.length > query.limit && last ? encodeCursor([last.profile, last.id]) : null,
        livenessWindowSeconds,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** A clean shutdown: the gateway leaves; rows it still owns are orphans for the next sweep. */
  async deregister(ctx: OperationContext, id: string): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const row = await this.gateways.find(tx.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('gateway');
      await this.gateways.delete(tx.db, id);
    });
  }

  /**
   * The scheduled sweep: once per interval across every process (the job scheduler). The pass
   * itself is single-flight with a sweep an administrator asks for (the sweep lease).
   */
  job(intervalMs: number): JobDefinition {
    return {
      name: LIVENESS_SWEEP_JOB,
      intervalMs,
      run: async (context) => {
        const sweep = await this.sweep(context.holder, (ms) => context.checkpoint(ms));
        return { ran: sweep.ran, reaped: sweep.reapedIds.length, expiredHandoffs: sweep.expiredHandoffIds.length };
      },
    };
  }

  /** An administrator runs a sweep now (the same single-flight pass the scheduler runs). */
  async sweepNow(ctx: OperationContext, holder: string): Promise<LivenessSweep> {
    assertAdmin(ctx.principal);
    return this.sweep(holder);
  }

  /**
   * One liveness sweep, run by whichever process holds the sweep lease (the others return at
   * once): ends orphaned open rows with `startup_orphan_reap` in bounded batches (`between` runs
   * between them), then expires stuck handoffs. Each pass holds the lease under a name of its own
   * (`holder` plus a pass id): two passes of one process are as exclusive as two processes', and a
   * pass releases only its own lease.
   */
  async sweep(
    processHolder: string,
    between: (lastChunkMs: number) => Promise<void> = async () => undefined,
  ): Promise<LivenessSweep> {
    const passHolder = `${processHolder}#sweep-${randomUUID().slice(0, 8)}`;
    const acquired = await this.uow.run(null, (tx) =>
      this.leases.acquire(tx.db, LIVENESS_SWEEP_JOB, passHolder, this.clock.now(), SWEEP_LEASE_MS),
    );
    if (!acquired) return { ran: false, reapedIds: [], expiredHandoffIds: [] };
    try {
      const reapedIds: string[] = [];
      for (let pass = 0; pass < MAX_REAP_PASSES; pass++) {
        const started = performance.now();
        const { candidates, reaped } = await this.uow.run(null, async (tx) => {
          const now = this.clock.now();
          const staleBefore = now - this.windows.gatewayTimeoutMs;
          const windows = {
            now,
            staleBefore,
            listenedLongEnough: this.listeningSince <= staleBefore,
            unownedIdleBefore: this.windows.orphanIdleMs > 0 ? now - this.windows.orphanIdleMs : null,
          };
          const found = await this.gateways.orphanCandidates(tx.db, { ...windows, limit: REAP_BATCH });
          // The ending statement re-checks every condition: a row taken since the read stays open.
          const ids = found.map((row) => row.id);
          return {
            candidates: ids.length,
            reaped: await this.gateways.endOrphans(tx.db, ids, windows, ORPHAN_REAP_REASON),
          };
        });
        reapedIds.push(...reaped);
        if (candidates < REAP_BATCH) break;
        await between(performance.now() - started);
      }
      const expiredHandoffIds = await this.handoff.expireStale(this.windows.handoffTimeoutMs);
      if (reapedIds.length > 0 || expiredHandoffIds.length > 0) {
        this.logger.info('liveness sweep', { reaped: reapedIds.length, expiredHandoffs: expiredHandoffIds.length });
      }
      return { ran: true, reapedIds, expiredHandoffIds };
    } finally {
      await this.uow
        .run(null, (tx) => this.leases.release(tx.db, LIVENESS_SWEEP_JOB, passHolder))
        .catch(() => undefined);
    }
  }

  private toGateway(row: GatewayRow, openSessions: number, now: number): Gateway {
    const lastSeenAt = Number(row.last_seen_at);
    return {
      id: row.id,
      profile: row.profile,
      host: row.host,
      pid: Number(row.pid),
      startedAt: toIso(Number(row.started_at)),
      registeredAt: toIso(Number(row.registered_at)),
      lastSeenAt: toIso(lastSeenAt),
      heartbeats: Number(row.heartbeats),
      alive: lastSeenAt >= now - this.windows.gatewayTimeoutMs,
      openSessions,
    };
  }
}
