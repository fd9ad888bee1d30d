import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../db/database.js';
import { contextOf, memberPrincipal, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { type SessionListFilter, SessionListRepository } from './session-list.repository.js';

const PROFILES = ['plan-a', 'plan-b', 'plan-c'];
const ROWS = 3000;
const T0 = Date.UTC(2026, 5, 1);

/** Rows over the three profiles, newest last; every 7th a delegate and every 11th archived (filtered out). */
async function seed(t: TestStore): Promise<void> {
  await t.store.db
    .insertInto('profiles')
    .values(PROFILES.map((name) => ({ name, created_at: T0 })))
    .onConflict((oc) => oc.doNothing())
    .execute();
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    id: `plan-${String(i).padStart(5, '0')}`,
    profile: PROFILES[i % 5 === 0 ? 2 : i % 2],
    source: 'cli',
    created_source: 'cli',
    started_at: T0 + i * 1000,
    // Activity order differs from start order, and ties on the time are broken by id.
    last_activity_at: T0 + (i % 100) * 60_000 + Math.floor(i / 300),
    delegated: i % 7 === 0 ? 1 : 0,
    archived: i % 11 === 0 ? 1 : 0,
  }));
  for (let i = 0; i < rows.length; i += 200) {
    await t.store.db
      .insertInto('sessions')
      .values(rows.slice(i, i + 200))
      .execute();
  }
}

const base: SessionListFilter = {
  profiles: null,
  status: 'all',
  archived: 'exclude',
  includeChildren: false,
  includeHidden: false,
  order: 'recent',
  limit: 51,
};

/**
 * A member's list over several profiles reads each profile's rows in order from its (profile, order,
 * id) index whatever the planner statistics say: as one `profile in (…)` it sorted every matching
 * row in a temporary b-tree (about 0.5 s at 10⁵ sessions) with no statistics and with PRAGMA
 * optimize's sampled ones (docs/decisions/0023-session-list-plans.md).
 */
describe('sessions list plan (sqlite file, after PRAGMA optimize)', () => {
  let t: TestStore;
  let raw: Database.Database;
  let captured: { sql: string; parameters: readonly unknown[] }[] = [];
  let db: Kysely<DB>;
  const repository = new SessionListRepository();

  beforeAll(async () => {
    t = await openTestStore('sqlite');
    await seed(t);
    await t.store.maintenance.optimizePlanner();
    raw = new Database(t.url.replace(/^file:/, ''), { readonly: true });
    db = new Kysely<DB>({
      dialect: new SqliteDialect({ database: raw }),
      log: (event) => {
        if (event.level === 'query') captured.push({ sql: event.query.sql, parameters: event.query.parameters });
      },
    });
  });
  afterAll(async () => {
    await db?.destroy();
    await t?.close();
  });

  /** EXPLAIN QUERY PLAN of the list query the repository runs for `filter`, grouped by parent node. */
  async function planOf(filter: SessionListFilter): Promise<{ details: string[]; groups: string[][] }> {
    captured = [];
    await repository.listConversationTips(db, filter);
    expect(captured).toHaveLength(1);
    const rows = raw.prepare(`explain query plan ${captured[0].sql}`).all(...captured[0].parameters) as {
      id: number;
      parent: number;
      detail: string;
    }[];
    const groups = new Map<number, string[]>();
    for (const row of rows) groups.set(row.parent, [...(groups.get(row.parent) ?? []), row.detail]);
    return { details: rows.map((row) => row.detail), groups: [...groups.values()] };
  }

  it('the planner has statistics for the sessions indexes', () => {
    const stats = raw.prepare(`select idx from sqlite_stat1 where tbl = 'sessions'`).all() as { idx: string }[];
    expect(stats.map((row) => row.idx)).toEqual(expect.arrayContaining(['sessions_profile_recent_idx']));
  });

  for (const [order, index] of [
    ['recent', 'sessions_profile_recent_idx'],
    ['started', 'sessions_profile_started_idx'],
  ] as const) {
    it(`several profiles, order ${order}: each profile read in order from ${index}, no sort of the table's rows`, async () => {
      for (const position of [{}, { after: { at: T0 + 50 * 60_000, id: 'plan-01500' } }] as const) {
        const { details, groups } = await planOf({ ...base, order, profiles: ['plan-a', 'plan-b'], ...position });
        expect(details.filter((detail) => detail.includes(`${index} (profile=?)`))).toHaveLength(2);
        expect(details.join('\n')).not.toMatch(/\bSCAN s\b(?! USING INDEX sessions_profile)/);
        // A sort may only order a profile's already-limited page, never rows read from the table.
        for (const group of groups) {
          if (group.some((detail) => detail.includes('TEMP B-TREE'))) {
            expect(group.join('\n')).not.toMatch(/\b(SCAN|SEARCH) s\b/);
          }
        }
      }
    });
  }

  it('one profile and the whole store keep their single ordered index walk', async () => {
    const one = await planOf({ ...base, profiles: ['plan-a'] });
    expect(one.details.join('\n')).toContain('sessions_profile_recent_idx (profile=?)');
    const all = await planOf(base);
    expect(all.details.join('\n')).toContain('SCAN s USING INDEX sessions_recent_idx');
    for (const plan of [one, all]) expect(plan.details.join('\n')).not.toContain('TEMP B-TREE');
  });
});

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`sessions list over several profiles on ${dialect}`, () => {
    let t: TestStore;
    beforeAll(async () => {
      t = await openTestStore(dialect);
      await seed(t);
    });
    afterAll(async () => t?.close());

    /** The visible tips of these profiles in list order, computed here from the seed's rules. */
    function expected(profiles: string[], order: 'recent' | 'started'): string[] {
      const rows = Array.from({ length: ROWS }, (_, i) => ({
        id: `plan-${String(i).padStart(5, '0')}`,
        profile: PROFILES[i % 5 === 0 ? 2 : i % 2],
        at: order === 'started' ? T0 + i * 1000 : T0 + (i % 100) * 60_000 + Math.floor(i / 300),
        visible: i % 7 !== 0 && i % 11 !== 0,
      })).filter((row) => row.visible && profiles.includes(row.profile));
      rows.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
      return rows.map((row) => row.id);
    }

    for (const order of ['recent', 'started'] as const) {
      it(`pages forward and back merge the profiles in order (${order})`, async () => {
        const member = contextOf(memberPrincipal(['plan-a', 'plan-c'], `plan-member-${order}`));
        const query = { status: 'all', archived: 'exclude', includeChildren: false, order, limit: 40 } as const;
        const want = expected(['plan-a', 'plan-c'], order);
        const pages: string[][] = [];
        let page = await t.store.sessions.list(member, query);
        pages.push(page.items.map((item) => item.id));
        while (page.nextCursor && pages.length < 6) {
          page = await t.store.sessions.list(member, { ...query, cursor: page.nextCursor });
          pages.push(page.items.map((item) => item.id));
        }
        expect(pages.flat()).toEqual(want.slice(0, pages.flat().length));
        expect(pages.flat()).toHaveLength(240);
        // And back: the previous page of the last one is the one before it.
        const back = await t.store.sessions.list(member, { ...query, cursor: page.prevCursor! });
        expect(back.items.map((item) => item.id)).toEqual(pages[pages.length - 2]);
        expect(want.length).toBeGreaterThan(1000);
        expect(page.total).toEqual({ count: 1000, exact: false });
      });
    }
  });
}
