import {
  type CreateLabelRequest,
  LABELS_MAX,
  type Label,
  type LabelList,
  type LabelSessionsResponse,
  type SessionLabelList,
  type UpdateLabelRequest,
} from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { isUniqueViolation, type SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { labelKey } from '../domain/label-filter.js';
import { LabelRepository, type LabelRow } from '../repositories/label.repository.js';
import { ProfileRepository } from '../repositories/profile.repository.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { SessionLabelRepository } from '../repositories/session-label.repository.js';
import { canAccessProfile } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import {
  ConflictError,
  NotFoundError,
  PreconditionRequiredError,
  RevisionConflictError,
  ValidationError,
} from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { toDomainError } from '../shared/store-errors.js';

const toLabel = (row: LabelRow, sessionCount: number): Label => ({
  name: row.name,
  colour: row.colour as Label['colour'],
  sessionCount,
  createdAt: toIso(Number(row.created_at)),
  updatedAt: toIso(Number(row.updated_at)),
  revision: Number(row.revision),
});

/**
 * Labels people tag conversations with (docs/domain.md §15): a profile's own, owner-fenced like
 * everything else, changed under `If-Match`, applied to many sessions of their profile at once.
 * How labels follow a session's life is session-labels.participant.ts.
 */
export class LabelService {
  private readonly labels = new LabelRepository();
  private readonly tags = new SessionLabelRepository();
  private readonly profiles = new ProfileRepository();
  private readonly sessions: SessionRepository;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    dialect: SqlDialect,
  ) {
    this.sessions = new SessionRepository(dialect);
  }

  private async assertProfile(ctx: OperationContext, profile: string, db = this.db): Promise<void> {
    if (!canAccessProfile(ctx.principal, profile) || !(await this.profiles.exists(db, profile))) {
      throw new NotFoundError('profile');
    }
  }

  private async labelOf(tx: Tx, ctx: OperationContext, profile: string, name: string): Promise<LabelRow> {
    await this.assertProfile(ctx, profile, tx.db);
    const row = await this.labels.findByKey(tx.db, profile, labelKey(name));
    if (!row) throw new NotFoundError('label');
    return row;
  }

  private countOf(db: Db | Tx['db'], row: LabelRow): Promise<number> {
    return this.labels.sessionCount(db, row.id);
  }

  async list(ctx: OperationContext, profile: string): Promise<LabelList> {
    try {
      await this.assertProfile(ctx, profile);
      const rows = await this.labels.listInProfile(this.db, profile);
      return { items: rows.map((row) => toLabel(row, row.session_count)) };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async create(ctx: OperationContext, profile: string, request: CreateLabelRequest): Promise<Label> {
    return this.uow.run(ctx, async (tx) => {
      await this.assertProfile(ctx, profile, tx.db);
      const name = request.name.normalize('NFC');
      const key = labelKey(name);
      if (await this.labels.findByKey(tx.db, profile, key)) throw new ConflictError(`label ${name} exists`);
      if ((await this.labels.count(tx.db, profile)) >= LABELS_MAX) {
        throw new ValidationError(`a profile keeps at most ${LABELS_MAX} labels`);
      }
      const now = this.clock.now();
      const row = {
        id: this.ids.next(),
        profile,
        name,
        name_key: key,
        colour: request.colour,
        created_at: now,
        updated_at: now,
      };
      try {
        await this.labels.insert(tx.db, row);
      } catch (error) {
        // Another writer created the same name between our read and our insert.
        if (isUniqueViolation(error)) throw new ConflictError(`label ${name} exists`);
        throw error;
      }
      return toLabel({ ...row, revision: 1 }, 0);
    });
  }

  /** Rename and/or recolour under `If-Match` (labels.revision). */
  async update(
    ctx: OperationContext,
    profile: string,
    name: string,
    request: UpdateLabelRequest,
    preconditions: Preconditions,
  ): Promise<Label> {
    if (preconditions.ifMatch === undefined) throw new PreconditionRequiredError('If-Match');
    const expected = preconditions.ifMatch;
    return this.uow.run(ctx, async (tx) => {
      const row = await this.labelOf(tx, ctx, profile, name);
      if (Number(row.revision) !== expected) throw new RevisionConflictError(Number(row.revision));
      const newName = request.name?.normalize('NFC') ?? row.name;
      const key = labelKey(newName);
      if (key !== row.name_key && (await this.labels.findByKey(tx.db, profile, key))) {
        throw new ConflictError(`label ${newName} exists`);
      }
      const change = { name: newName, name_key: key, colour: request.colour ?? row.colour };
      const now = this.clock.now();
      let written: boolean;
      try {
        written = await this.labels.update(tx.db, row.id, change, now, expected);
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`label ${newName} exists`);
        throw error;
      }
      if (!written) throw new RevisionConflictError(Number(row.revision));
      const updated = { ...row, ...change, updated_at: now, revision: expected + 1 };
      return toLabel(updated, await this.countOf(tx.db, updated));
    });
  }

  /** Deletes the label under `If-Match`; the sessions carrying it lose it, nothing else changes. */
  async delete(ctx: OperationContext, profile: string, name: string, preconditions: Preconditions): Promise<void> {
    if (preconditions.ifMatch === undefined) throw new PreconditionRequiredError('If-Match');
    const expected = preconditions.ifMatch;
    await this.uow.run(ctx, async (tx) => {
      const row = await this.labelOf(tx, ctx, profile, name);
      if (Number(row.revision) !== expected) throw new RevisionConflictError(Number(row.revision));
      if (!(await this.labels.delete(tx.db, row.id, expected))) throw new RevisionConflictError(Number(row.revision));
    });
  }

  /** Tags every named session, all of the label's profile, or none (labels.bulk). */
  async apply(ctx: OperationContext, profile: string, name: string, sessionIds: readonly string[]) {
    return this.changeSessions(ctx, profile, name, sessionIds, 'apply');
  }

  async remove(ctx: OperationContext, profile: string, name: string, sessionIds: readonly string[]) {
    return this.changeSessions(ctx, profile, name, sessionIds, 'remove');
  }

  private async changeSessions(
    ctx: OperationContext,
    profile: string,
    name: string,
    sessionIds: readonly string[],
    change: 'apply' | 'remove',
  ): Promise<LabelSessionsResponse> {
    return this.uow.run(ctx, async (tx) => {
      const row = await this.labelOf(tx, ctx, profile, name);
      const ids = [...new Set(sessionIds)];
      const found = new Map((await this.sessions.listByIds(tx.db, ids)).map((session) => [session.id, session]));
      for (const id of ids) {
        const session = found.get(id);
        if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
        if (session.profile !== profile) {
          throw new ValidationError(
            `session ${id} is in profile ${session.profile}; label ${row.name} is of ${profile}`,
          );
        }
      }
      const changed =
        change === 'apply'
          ? await this.tags.apply(tx.db, row.id, ids, this.clock.now())
          : await this.tags.remove(tx.db, row.id, ids);
      return { label: toLabel(row, await this.countOf(tx.db, row)), changed };
    });
  }

  /** One session's labels (its page shows them); missing or out of reach: `not_found`. */
  async ofSession(ctx: OperationContext, sessionId: string): Promise<SessionLabelList> {
    try {
      const [session] = await this.sessions.listByIds(this.db, [sessionId]);
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      const labels = (await this.tags.forSessions(this.db, [sessionId])).get(sessionId) ?? [];
      return { items: labels as SessionLabelList['items'] };
    } catch (error) {
      throw toDomainError(error);
    }
  }
}
