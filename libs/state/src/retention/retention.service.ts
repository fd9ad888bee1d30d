import type { RetentionPolicy } from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { assertRetentionWindow, type DeletionService } from '../deletion/deletion.service.js';
import { ProfileRepository } from '../profiles/profile.repository.js';
import { assertAdmin, SYSTEM_PRINCIPAL } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';
import type { UnitOfWork } from '../shared/unit-of-work.js';
import { JobLeaseRepository } from './job-lease.repository.js';
import { RetentionPolicyRepository } from './retention-policy.repository.js';

export const RETENTION_JOB = 'retention';
const JOB_LEASE_MS = 10 * 60 * 1000;
/** Passes per profile per run: each pass handles a bounded batch. */
const MAX_PASSES = 50;

export interface RetentionRunReport {
  ran: boolean;
  deleted: number;
  profiles: string[];
  /** Profiles whose stored policy is invalid (a negative window): not applied, logged. */
  skipped: string[];
}

/** Per-profile retention windows and the scheduled pass that applies them. */
export class RetentionService {
  private readonly policies = new RetentionPolicyRepository();
  private readonly profiles = new ProfileRepository();
  private readonly leases = new JobLeaseRepository();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly deletion: DeletionService,
    private readonly logger: Logger,
  ) {}

  async list(ctx: OperationContext): Promise<RetentionPolicy[]> {
    assertAdmin(ctx.principal);
    try {
      return await this.policies.list(this.db);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async put(ctx: OperationContext, profile: string, retentionDays: number | null): Promise<RetentionPolicy> {
    assertAdmin(ctx.principal);
    if (retentionDays !== null) assertRetentionWindow(retentionDays);
    return this.uow.run(ctx, async (tx) => {
      if (!(await this.profiles.exists(tx.db, profile))) throw new NotFoundError('profile');
      if (retentionDays === null) await this.policies.clear(tx.db, profile);
      else await this.policies.set(tx.db, profile, retentionDays, this.clock.now());
      return { profile, retentionDays };
    });
  }

  /**
   * One scheduled pass: only the process holding the job lease runs it; the others return at once.
   * Each profile with a policy is pruned in bounded batches until nothing more qualifies.
   */
  async runScheduledPass(holder: string): Promise<RetentionRunReport> {
    const now = this.clock.now();
    const acquired = await this.uow.run(null, (tx) =>
      this.leases.acquire(tx.db, RETENTION_JOB, holder, now, JOB_LEASE_MS),
    );
    if (!acquired) return { ran: false, deleted: 0, profiles: [], skipped: [] };
    const ctx: OperationContext = { principal: SYSTEM_PRINCIPAL, channel: 'system' };
    let deleted = 0;
    const touched: string[] = [];
    const skipped: string[] = [];
    try {
      for (const policy of await this.policies.list(this.db)) {
        if (policy.retentionDays === null) continue;
        // A stored window the rules refuse (written before the CHECK constraint) is skipped, loudly.
        try {
          assertRetentionWindow(policy.retentionDays);
        } catch {
          skipped.push(policy.profile);
          this.logger.warn('retention policy skipped: its window is invalid; fix it with PUT /v1/retention/policies', {
            profile: policy.profile,
            retentionDays: policy.retentionDays,
          });
          continue;
        }
        touched.push(policy.profile);
        for (let pass = 0; pass < MAX_PASSES; pass++) {
          const result = await this.deletion.retentionPrune(ctx, {
            olderThanDays: policy.retentionDays,
            profile: policy.profile,
            dryRun: false,
          });
          deleted += result.deletedIds.length;
          if (result.deletedIds.length === 0) break;
        }
      }
      if (deleted > 0) this.logger.info('retention pass removed sessions', { deleted, profiles: touched });
    } finally {
      await this.uow.run(null, (tx) => this.leases.release(tx.db, RETENTION_JOB, holder));
    }
    return { ran: true, deleted, profiles: touched, skipped };
  }
}
