import type { ProfileSummary } from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { ProfileRepository } from '../repositories/profile.repository.js';
import { assertAdmin, profileScope } from '../shared/access.js';
import { type Clock, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { toDomainError } from '../shared/store-errors.js';

export class ProfileService {
  private readonly profiles = new ProfileRepository();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /** Profiles the principal may see, with their counts (fenced like every read). */
  async list(ctx: OperationContext): Promise<ProfileSummary[]> {
    try {
      const rows = await this.profiles.listWithCounts(this.db, profileScope(ctx.principal));
      return rows.map((row) => ({ ...row, lastActiveAt: toIsoOrNull(row.lastActiveAt) }));
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async create(ctx: OperationContext, name: string): Promise<ProfileSummary> {
    assertAdmin(ctx.principal);
    return this.uow.run(ctx, async (tx) => {
      await this.profiles.ensure(tx.db, name, this.clock.now());
      const [row] = await this.profiles.listWithCounts(tx.db, [name]);
      return { ...row, lastActiveAt: toIsoOrNull(row.lastActiveAt) };
    });
  }
}
