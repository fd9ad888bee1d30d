import type { Executor } from '../db/database.js';

export interface ProfileCounts {
  name: string;
  sessionCount: number;
  /** What the sessions list shows by default: conversations (chain tips), sub-agents and archived aside. */
  conversationCount: number;
  messageCount: number;
  routeCount: number;
  lastActiveAt: number | null;
}

export class ProfileRepository {
  async ensure(db: Executor, name: string, now: number): Promise<void> {
    await db
      .insertInto('profiles')
      .values({ name, created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }

  async find(db: Executor, name: string): Promise<{ name: string; created_at: number } | undefined> {
    return db.selectFrom('profiles').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async insert(db: Executor, name: string, createdAt: number): Promise<void> {
    await db.insertInto('profiles').values({ name, created_at: createdAt }).execute();
  }

  async delete(db: Executor, name: string): Promise<void> {
    await db.deleteFrom('profiles').where('name', '=', name).execute();
  }

  async exists(db: Executor, name: string): Promise<boolean> {
    return (await db.selectFrom('profiles').select('name').where('name', '=', name).executeTakeFirst()) !== undefined;
  }

  async listWithCounts(db: Executor, only: string[] | null): Promise<ProfileCounts[]> {
    if (only !== null && only.length === 0) return [];
    let query = db
      .selectFrom('profiles as p')
      // Hidden sessions (half-imported) are not counted yet.
      .leftJoin('sessions as s', (join) => join.onRef('s.profile', '=', 'p.name').on('s.hidden_for', 'is', null))
      .select((eb) => [
        'p.name',
        eb.fn.count<number>('s.id').as('session_count'),
        // Counted as the list counts its default view (tips, no sub-agents, no archived, nothing
        // hidden), so the switcher's "support (9)" is the number of rows the list then shows.
        eb.fn
          .sum<number>(
            eb
              .case()
              .when(
                eb.and([
                  eb('s.delegated', '=', 0),
                  eb('s.archived', '=', 0),
                  eb('s.hidden', '=', 0),
                  eb.not(
                    eb.exists(
                      eb
                        .selectFrom('sessions as c')
                        .select('c.id')
                        .whereRef('c.parent_session_id', '=', 's.id')
                        .where('c.lineage_kind', '=', 'compression')
                        .where('c.hidden_for', 'is', null),
                    ),
                  ),
                ]),
              )
              .then(1)
              .else(0)
              .end(),
          )
          .as('conversation_count'),
        eb.fn.coalesce(eb.fn.sum<number>('s.message_count'), eb.lit(0)).as('message_count'),
        eb.fn.max('s.last_activity_at').as('last_active_at'),
        eb
          .selectFrom('routes as r')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .whereRef('r.profile', '=', 'p.name')
          .as('route_count'),
      ])
      .groupBy('p.name')
      .orderBy('p.name');
    if (only !== null) query = query.where('p.name', 'in', only);
    const rows = await query.execute();
    return rows.map((row) => ({
      name: row.name,
      sessionCount: Number(row.session_count),
      conversationCount: Number(row.conversation_count ?? 0),
      messageCount: Number(row.message_count),
      routeCount: Number(row.route_count ?? 0),
      lastActiveAt: row.last_active_at === null ? null : Number(row.last_active_at),
    }));
  }
}
