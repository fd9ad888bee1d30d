import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminPrincipal, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { planSearch, toFts5Match, toTrigramMatch, toTsQuery } from './search-query.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the snippet markers are control characters.
const MARKERS = /[\u0002\u0003]/g;

const admin = contextOf(adminPrincipal);

/** Pieces people (and attackers) type: the syntax we support, the engines' syntax, and noise. */
const piece = fc.oneof(
  fc.constantFrom(
    'OR',
    'NOT',
    'AND',
    'NEAR',
    'near(',
    '|',
    '&',
    '!',
    '-',
    '"',
    "'",
    '*',
    ':*',
    '(',
    ')',
    '^',
    ':',
    '\\',
    '.',
    '-x',
    'a.b',
    'x-y-z',
    'P2.2',
    'my-app.config.ts',
    '会议',
    '产品规划',
    'ünïcödé',
    '\u0000',
    '\u200B',
    '{',
    '}',
    '%',
    '_',
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const hostileQuery = fc
  .array(fc.tuple(piece, fc.constantFrom(' ', '', '  ', '"')), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.map(([text, gap]) => text + gap).join(''))
  .filter((q) => q.length > 0);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`search syntax is injection-proof on ${dialect}`, () => {
    let t: TestStore;

    beforeAll(async () => {
      t = await openTestStore(dialect);
      await t.store.sessions.create(admin, {
        id: 'prop',
        profile: 'p',
        source: 'cli',
        title: 'property corpus',
        messages: [
          { role: 'user', content: 'deploy the my-app.config.ts change on P2.2 via chat-send' },
          { role: 'assistant', content: '会议纪要 and 产品规划 notes; bravo delta' },
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id: 'c1', type: 'function', function: { name: 'web_search', arguments: '{"query":"x"}' } }],
          },
        ],
      });
    });
    afterAll(async () => t?.close());

    it('[search.query-syntax] the engine accepts whatever expression a query plans into', async () => {
      await fc.assert(
        fc.asyncProperty(hostileQuery, async (q) => {
          const plan = planSearch(q);
          if (dialect === 'sqlite') {
            if (plan.clauses.length > 0) {
              await sql`select count(*) as n from messages_fts where messages_fts match ${toFts5Match(plan.clauses)}`.execute(
                t.store.db,
              );
            }
            const trigram = toTrigramMatch(plan.substringClauses);
            if (trigram !== null) {
              await sql`select count(*) as n from messages_trgm where messages_trgm match ${trigram}`.execute(
                t.store.db,
              );
            }
          } else if (plan.clauses.length > 0) {
            await sql`select count(*) as n from messages where search_vector @@ to_tsquery('simple', ${toTsQuery(plan.clauses)})`.execute(
              t.store.db,
            );
          }
        }),
        { numRuns: 300, seed: 9 },
      );
    });

    it('[search.query-syntax] search answers any input from its index, never degraded, in every mode', async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileQuery,
          fc.constantFrom('auto', 'word', 'substring') as fc.Arbitrary<never>,
          async (q, mode) => {
            const result = await t.store.search.search(admin, { q, mode, limit: 5 });
            // A query the engine rejected would have been answered by the fallback scan, flagged degraded.
            expect(result.degraded).toBe(false);
          },
        ),
        { numRuns: 200, seed: 9 },
      );
    });

    it('[search.query-syntax] finds what the syntax says', async () => {
      const ids = async (q: string, mode: 'auto' | 'word' | 'substring' = 'word') =>
        (await t.store.search.search(admin, { q, mode, limit: 20 })).items
          .filter((hit) => hit.matchedIn === 'content')
          .map((hit) => hit.snippet.replace(MARKERS, ''));
      expect(await ids('bravo OR nothingsuch')).toHaveLength(1);
      expect(await ids('deploy -bravo')).toHaveLength(1);
      expect(await ids('deploy NOT chat-send')).toEqual([]);
      expect(await ids('my-app.config.ts')).toHaveLength(1);
      expect(await ids('P2.2')).toHaveLength(1);
      expect(await ids('"deploy the"')).toHaveLength(1);
      expect(await ids('depl*')).toHaveLength(1);
      expect(await ids('会议 OR 不存在的词', 'substring')).toHaveLength(1);
    });
  });
}
