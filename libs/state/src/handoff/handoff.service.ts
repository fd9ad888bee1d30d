import type { Session } from '@statehouse/contracts';
import { SessionRepository, toSession } from '../sessions/session.repository.js';
import { canAccessProfile } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { ConflictError, NotFoundError, RevisionConflictError } from '../shared/errors.js';
import type { SqlDialect } from '../shared/sql-dialect.js';
import type { UnitOfWork } from '../shared/unit-of-work.js';

type HandoffState = 'pending' | 'running' | 'completed' | 'failed';

/**
 * Moving a live conversation to another surface: `pending → running → completed | failed`.
 * A request is allowed only from no handoff, completed or failed; every step is a compare-and-set,
 * so two surfaces cannot both claim one handoff. A completed handoff makes its row recoverable.
 */
export class HandoffService {
  private readonly sessions: SessionRepository;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    dialect: SqlDialect,
  ) {
    this.sessions = new SessionRepository(dialect);
  }

  request(ctx: OperationContext, id: string, platform: string, preconditions: Preconditions): Promise<Session> {
    return this.transition(
      ctx,
      id,
      [null, 'completed', 'failed'],
      { state: 'pending', platform, error: null },
      preconditions,
    );
  }

  claim(ctx: OperationContext, id: string, preconditions: Preconditions): Promise<Session> {
    return this.transition(ctx, id, ['pending'], { state: 'running' }, preconditions);
  }

  complete(ctx: OperationContext, id: string, preconditions: Preconditions): Promise<Session> {
    return this.transition(ctx, id, ['running'], { state: 'completed', error: null }, preconditions);
  }

  fail(ctx: OperationContext, id: string, error: string, preconditions: Preconditions): Promise<Session> {
    return this.transition(ctx, id, ['pending', 'running'], { state: 'failed', error }, preconditions);
  }

  private transition(
    ctx: OperationContext,
    id: string,
    from: (HandoffState | null)[],
    to: { state: HandoffState; platform?: string; error?: string | null },
    preconditions: Preconditions,
  ): Promise<Session> {
    return this.uow.run(ctx, async (tx) => {
      const row = await this.sessions.findByIdForUpdate(tx.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
      if (preconditions.ifMatch !== undefined && preconditions.ifMatch !== Number(row.revision)) {
        throw new RevisionConflictError(Number(row.revision));
      }
      const moved = await this.sessions.transitionHandoff(tx.db, id, from, to, Number(row.revision));
      if (!moved) {
        throw new ConflictError(
          `handoff is ${row.handoff_state ?? 'not requested'}; ${to.state} needs ${from.map((state) => state ?? 'none').join(' or ')}`,
        );
      }
      return toSession((await this.sessions.findById(tx.db, id))!, this.clock.now());
    });
  }
}
