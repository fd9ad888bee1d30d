import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../db/database.js';
import { adminPrincipal, aSession, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { MessageRepository } from './message.repository.js';

const admin = contextOf(adminPrincipal);
const TOOL_ROWS = 300;
/** Tool output large enough to spill into overflow pages, as real tool results do. */
const TOOL_OUTPUT = 'x'.repeat(6_000);

/** A question, an observed aside, then an agent's run of tool calls and results before its reply. */
async function agentRun(t: TestStore, id: string, at: number): Promise<void> {
  await aSession(t.store, { id, profile: 'alpha', source: 'cli' });
  await t.store.messages.append(admin, id, {
    messages: [
      { role: 'user', content: 'fix the build', timestamp: at },
      { role: 'user', content: 'lunch?', timestamp: at + 10, observed: true },
    ],
  });
  for (let i = 0; i < TOOL_ROWS; i += 50) {
    await t.store.messages.append(admin, id, {
      messages: Array.from({ length: 50 }, (_, k) =>
        k % 2 === 0
          ? {
              role: 'assistant' as const,
              content: '',
              toolCalls: [{ id: `c${i + k}`, name: 'read' }],
              timestamp: at + 100 + i + k,
            }
          : {
              role: 'tool' as const,
              toolName: 'read',
              toolCallId: `c${i + k - 1}`,
              content: TOOL_OUTPUT,
              timestamp: at + 100 + i + k,
            },
      ),
    });
  }
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`reply latency after a long agent run on ${dialect}`, () => {
    let t: TestStore;
    beforeAll(async () => {
      t = await openTestStore(dialect);
    });
    afterAll(() => t?.close());

    it('[stats.reply-latency] a reply after hundreds of tool rows answers the question, not the observed aside', async () => {
      const at = Date.UTC(2026, 2, 2, 9);
      await agentRun(t, 'agent-run', at);
      await t.store.messages.append(admin, 'agent-run', {
        messages: [{ role: 'assistant', content: 'Fixed.', timestamp: at + 60_000 }],
      });
      const page = await t.store.messages.list(admin, 'agent-run', {
        limit: 1,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'newest',
      });
      expect(page.items.map((m) => [m.content, m.replyLatencyMs])).toEqual([['Fixed.', 60_000]]);
      // Every tool-call row of the run is a reply to the same question.
      const calls = await t.store.messages.list(admin, 'agent-run', {
        limit: 3,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'oldest',
      });
      expect(calls.items.map((m) => m.replyLatencyMs)).toEqual([null, null, 100]);
    });
  });
}

/**
 * The lookback reads the question from messages_answerable_idx, which holds only active, visible
 * user rows: on the session's id index it tested every tool row since the question — reading past
 * each one's content — so an agent's reply cost grew with the length of its run.
 */
describe('reply lookback plan (sqlite file)', () => {
  let t: TestStore;
  let raw: Database.Database;
  let db: Kysely<DB>;
  let captured: CompiledQuery[] = [];

  beforeAll(async () => {
    t = await openTestStore('sqlite');
    await agentRun(t, 'plan-run', Date.UTC(2026, 2, 2, 9));
    await t.store.maintenance.optimizePlanner();
    raw = new Database(t.url.replace(/^file:/, ''), { readonly: true });
    db = new Kysely<DB>({
      dialect: new SqliteDialect({ database: raw }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
  });
  afterAll(async () => {
    await db?.destroy();
    await t?.close();
  });

  it('finds the question through the partial index, reading no tool row', async () => {
    captured = [];
    const repository = new MessageRepository();
    expect(await repository.lastAnswerableAt(db, 'plan-run')).toBe(Date.UTC(2026, 2, 2, 9));
    // The newest user row was only observed: the walk went on to the next one, on the same index.
    expect(captured.length).toBe(2);
    for (const query of captured) {
      const plan = raw.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as { detail: string }[];
      expect(plan.map((row) => row.detail).join('\n')).toMatch(
        /SEARCH messages USING INDEX messages_answerable_idx \(session_id=\?\)/,
      );
    }
    // What the index holds: the two user rows, none of the session's 300 tool rows.
    const indexed = raw
      .prepare(
        `select count(*) as n from messages indexed by messages_answerable_idx where session_id = ? and role = 'user' and active = 1 and display_kind = 'visible'`,
      )
      .get('plan-run') as { n: number };
    expect(indexed.n).toBe(2);
  });
});
