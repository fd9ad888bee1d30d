import {
  type DeleteMetaQuery,
  type ListMetaQuery,
  META_ENTRIES_MAX,
  type MetaEntry,
  type MetaPage,
  type PutMetaRequest,
} from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { isUniqueViolation } from '../db/sql-dialect.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { ProfileRepository } from '../repositories/profile.repository.js';
import { type MetaRow, ProfileMetaRepository } from '../repositories/profile-meta.repository.js';
import { canAccessProfile } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { toDomainError } from '../shared/store-errors.js';

const META_CURSOR = cursorShape(CursorPart.text);

const toEntry = (row: MetaRow): MetaEntry => ({
  key: row.key,
  value: row.value,
  updatedAt: toIso(Number(row.updated_at)),
});

/**
 * A small key/value store per profile (docs/domain.md §14): agent runtimes keep their own
 * bookkeeping here (schedules, markers, leases by compare-and-set). Owner-fenced like everything
 * else; it follows a profile rename and goes with the profile's identity.
 */
export class ProfileMetaService {
  private readonly meta = new ProfileMetaRepository();
  private readonly profiles = new ProfileRepository();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  private async assertProfile(ctx: OperationContext, profile: string, db = this.db): Promise<void> {
    if (!canAccessProfile(ctx.principal, profile) || !(await this.profiles.exists(db, profile))) {
      throw new NotFoundError('profile');
    }
  }

  async get(ctx: OperationContext, profile: string, key: string): Promise<MetaEntry> {
    try {
      await this.assertProfile(ctx, profile);
      const row = await this.meta.get(this.db, profile, key);
      if (!row) throw new NotFoundError('key');
      return toEntry(row);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async list(ctx: OperationContext, profile: string, query: ListMetaQuery): Promise<MetaPage> {
    try {
      await this.assertProfile(ctx, profile);
      const after = query.cursor ? decodeCursor(query.cursor, META_CURSOR)[0] : undefined;
      const rows = await this.meta.list(this.db, profile, query.prefix ?? '', after, query.limit + 1);
      const page = rows.slice(0, query.limit);
      return {
        items: page.map(toEntry),
        nextCursor: rows.length > query.limit ? encodeCursor([page[page.length - 1].key]) : null,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Writes a value. With `ifValue` it is a compare-and-set: written only while the stored value is
   * that one (`null`: only while the key is absent), else `conflict` — two writers never both win.
   */
  async put(ctx: OperationContext, profile: string, key: string, request: PutMetaRequest): Promise<MetaEntry> {
    return this.uow.run(ctx, async (tx) => {
      await this.assertProfile(ctx, profile, tx.db);
      const now = this.clock.now();
      const current = await this.meta.get(tx.db, profile, key);
      if (request.ifValue !== undefined) {
        const stored = current?.value ?? null;
        if (stored !== request.ifValue) throw new ConflictError(`the value of ${key} is not the one expected`);
      }
      if (current) {
        const written = await this.meta.update(tx.db, profile, key, request.value, now, request.ifValue ?? undefined);
        if (!written) throw new ConflictError(`the value of ${key} changed meanwhile`);
      } else {
        if ((await this.meta.count(tx.db, profile)) >= META_ENTRIES_MAX) {
          throw new ValidationError(`a profile keeps at most ${META_ENTRIES_MAX} keys`);
        }
        try {
          await this.meta.insert(tx.db, profile, key, request.value, now);
        } catch (error) {
          // Another writer created the key between our read and our insert.
          if (isUniqueViolation(error)) throw new ConflictError(`${key} was written meanwhile`);
          throw error;
        }
      }
      return { key, value: request.value, updatedAt: toIso(now) };
    });
  }

  async delete(ctx: OperationContext, profile: string, key: string, query: DeleteMetaQuery): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      await this.assertProfile(ctx, profile, tx.db);
      const deleted = await this.meta.delete(tx.db, profile, key, query.ifValue);
      if (deleted) return;
      if (query.ifValue !== undefined && (await this.meta.get(tx.db, profile, key))) {
        throw new ConflictError(`the value of ${key} is not the one expected`);
      }
      throw new NotFoundError('key');
    });
  }
}
