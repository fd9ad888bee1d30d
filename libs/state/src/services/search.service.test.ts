import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminPrincipal, aSession, contextOf, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const query = (q: string, mode: 'auto' | 'word' | 'substring' = 'auto') => ({ q, mode, limit: 20 });

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`search postings on ${dialect}`, () => {
    const t = useTestStore(dialect);

    beforeAll(async () => {
      await aSession(t.store, {
        id: 'doc',
        messages: [
          { role: 'user', content: 'the flamingo migration plan' },
          { role: 'assistant', content: 'flamingo rollout is staged' },
        ],
      });
      await aSession(t.store, {
        id: 'helper',
        parentSessionId: 'doc',
        lineageKind: 'delegate',
        messages: [{ role: 'assistant', content: 'delegatefragment scaffolding' }],
      });
      await aSession(t.store, {
        id: 'doc-next',
        parentSessionId: 'doc',
        lineageKind: 'compression',
      });
    });

    it('[search.results] answers word and substring queries projected to the conversation tip', async () => {
      const words = await t.store.search.search(admin, query('flamingo'));
      expect(words.items).toHaveLength(2);
      expect(words.items.every((hit) => hit.sessionId === 'doc' && hit.tipSessionId === 'doc-next')).toBe(true);
      const fragment = await t.store.search.search(admin, query('ollou', 'substring'));
      expect(fragment.items.map((hit) => hit.snippet)).toEqual([expect.stringContaining('\u0002ollou\u0003')]);
    });

    it('[search.default-scope] [search.indexes] keeps delegate sessions out of the default scope of both indexes; asking brings them in', async () => {
      expect((await t.store.search.search(admin, query('gatefragm', 'substring'))).items).toEqual([]);
      expect((await t.store.search.search(admin, query('delegatefragment', 'word'))).items).toEqual([]);
      const widened = { excludeSource: [] };
      expect(
        (await t.store.search.search(admin, { ...query('delegatefragment', 'word'), ...widened })).items,
      ).toHaveLength(1);
      expect(
        (await t.store.search.search(admin, { ...query('gatefragm', 'substring'), ...widened })).items,
      ).toHaveLength(1);
      expect((await t.store.search.search(admin, { ...query('gatefragm'), sessionId: 'helper' })).items).toHaveLength(
        1,
      );
    });

    it('[search.results] drops postings in the same transaction as the message change', async () => {
      const [first] = (await t.store.search.search(admin, query('migration'))).items;
      await t.store.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('messages').where('id', '=', first.messageId).execute();
        // Inside the deleting transaction the postings are already gone.
        const { rows } =
          dialect === 'sqlite'
            ? await sql`select rowid from messages_fts where messages_fts match 'migration'`.execute(trx)
            : await sql`select id from messages where search_vector @@ to_tsquery('simple', 'migration')`.execute(trx);
        expect(rows).toEqual([]);
      });
      expect((await t.store.search.search(admin, query('migration'))).items).toEqual([]);
      expect((await t.store.search.search(admin, query('migrati', 'substring'))).items).toEqual([]);
    });

    it('[messages.active-compacted] follows soft state changes: inactive rows leave, compacted rows stay', async () => {
      const [hit] = (await t.store.search.search(admin, query('rollout'))).items;
      await t.store.db
        .updateTable('messages')
        .set({ active: 0, compacted: 1 })
        .where('id', '=', hit.messageId)
        .execute();
      expect((await t.store.search.search(admin, query('rollout'))).items).toHaveLength(1);
      await t.store.db
        .updateTable('messages')
        .set({ active: 0, compacted: 0 })
        .where('id', '=', hit.messageId)
        .execute();
      expect((await t.store.search.search(admin, query('rollout'))).items).toEqual([]);
      expect((await t.store.search.search(admin, query('ollou', 'substring'))).items).toEqual([]);
      await t.store.db.updateTable('messages').set({ active: 1 }).where('id', '=', hit.messageId).execute();
      expect((await t.store.search.search(admin, query('rollout'))).items).toHaveLength(1);
      await t.store.db.updateTable('messages').set({ compacted: 1 }).where('id', '=', hit.messageId).execute();
      await t.store.db
        .updateTable('messages')
        .set({ content: 'rollout rewritten' })
        .where('id', '=', hit.messageId)
        .execute();
      expect((await t.store.search.search(admin, query('rewritten'))).items).toHaveLength(1);
      expect((await t.store.search.search(admin, query('ewritte', 'substring'))).items).toHaveLength(1);
      // After every kind of change above, both indexes hold exactly what the messages call for.
      expect((await t.store.searchIndex.status(admin, true)).integrity).toMatchObject({ ok: true });
    });

    if (dialect === 'sqlite')
      it('[search.check-rebuild] degrades to a bounded scan, flagged, when the index is unusable', async () => {
        await sql`drop table messages_fts`.execute(t.store.db);
        try {
          const result = await t.store.search.search(admin, query('rollout', 'word'));
          expect(result.degraded).toBe(true);
          expect(result.items.map((hit) => hit.sessionId)).toEqual(['doc']);
        } finally {
          await sql`create virtual table messages_fts using fts5(content, tool_name, tool_calls, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2')`.execute(
            t.store.db,
          );
          await sql`insert into messages_fts(messages_fts) values ('rebuild')`.execute(t.store.db);
        }
      });
  });
}
