import type { RetentionPolicy } from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { ProfileRepository } from '../repositories/profile.repository.js';
import { RetentionPolicyRepository } from '../repositories/retention-policy.repository.js';
import { assertAdmin, SYSTEM_PRINCIPAL } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';
import { assertRetentionWindow, type DeletionService } from './deletion.service.js';
import type { JobContext, JobDefinition } from './job.service.js';

export const RETENTION_JOB = 'retention';
/** Passes per profile per run: each pass handles a bounded batch. */
const MAX_PASSES = 50;

export interface RetentionRunReport extends Record<string, unknown> {
  deleted: number;
  profiles: string[];
  /** Profiles whose stored policy is invalid (a negative window): not applied, logged. */
  skipped: string[];
}

/** Per-profile retention windows and the scheduled pass that applies them. */
export class RetentionService {
  private readonly policies = new RetentionPolicyRepository();
  private readonly profiles = new ProfileRepository();

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

  /** The scheduled pass: once per interval across every process (the job scheduler's lease). */
  job(intervalMs: number): JobDefinition {
    return { name: RETENTION_JOB, intervalMs, run: (context) => this.runPass(context) };
  }

  /**
   * Each profile with a policy is pruned in bounded chunks (each its own transaction and receipt)
   * until nothing more qualifies.
   */
  async runPass(context: JobContext): Promise<RetentionRunReport> {
    const ctx: OperationContext = { principal: SYSTEM_PRINCIPAL, channel: 'system' };
    let deleted = 0;
    const touched: string[] = [];
    const skipped: string[] = [];
    // The pass is one operation for observers: one call after its last chunk, whatever the profiles.
    const notice = this.deletion.notice();
    await notice.around(async () => {
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
          const result = await this.deletion.retentionPrune(
            ctx,
            { olderThanDays: policy.retentionDays, profile: policy.profile, dryRun: false },
            (ms) => context.checkpoint(ms),
            notice,
          );
          deleted += result.deletedIds.length;
          if (result.deletedIds.length === 0) break;
          await context.checkpoint();
        }
      }
    });
    if (deleted > 0) this.logger.info('retention pass removed sessions', { deleted, profiles: touched });
    return { deleted, profiles: touched, skipped };
  }
}
