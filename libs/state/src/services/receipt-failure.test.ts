import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionDeletedEvent } from '../domain/hook-registry.js';
import { adminPrincipal, contextOf, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);

/** docs/domain.md §5.3.1: no receipt, no deletion — on both dialects. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`a receipt that cannot be written on ${dialect}`, () => {
    const t = useTestStore(dialect);
    const heard: SessionDeletedEvent[] = [];

    /** Makes every receipt insert fail in the database itself (a full disk, a broken table, …). */
    const refuseReceipts = async () => {
      if (dialect === 'sqlite') {
        await sql`create trigger refuse_receipts before insert on deletion_receipts
          begin select raise(abort, 'receipts cannot be written'); end`.execute(t.store.db);
      } else {
        await sql`create function refuse_receipt() returns trigger language plpgsql as $$
          begin raise exception 'receipts cannot be written'; end $$`.execute(t.store.db);
        await sql`create trigger refuse_receipts before insert on deletion_receipts
          for each row execute function refuse_receipt()`.execute(t.store.db);
      }
    };
    const allowReceipts = async () => {
      if (dialect === 'sqlite') await sql`drop trigger refuse_receipts`.execute(t.store.db);
      else {
        await sql`drop trigger refuse_receipts on deletion_receipts`.execute(t.store.db);
        await sql`drop function refuse_receipt()`.execute(t.store.db);
      }
    };

    beforeAll(async () => {
      t.store.hooks.onSessionDeleted((event) => {
        heard.push(event);
      });
    });

    it('[receipts.in-transaction] a failing receipt insert fails the deletion: every row stays, nobody is told', async () => {
      await t.store.sessions.create(admin, {
        id: 'rf-1',
        profile: 'rf',
        source: 'cli',
        messages: [{ role: 'user', content: 'keepme quokkasaurus words' }],
      });
      await t.store.sessions.create(admin, {
        id: 'rf-helper',
        profile: 'rf',
        source: 'subagent',
        parentSessionId: 'rf-1',
        lineageKind: 'delegate',
      });
      await t.store.routes.set(admin, { profile: 'rf', sessionKey: 'agent:rf:cli:dm:1', sessionId: 'rf-1' });
      const before = (await t.store.receipts.list(admin, { after: 0, limit: 1 })).highWater;
      await refuseReceipts();
      try {
        await expect(
          t.store.deletion.deleteOne(
            admin,
            'rf-1',
            { includeCompressionChain: false, ifEmpty: false },
            { ifMatch: 1, expectedGeneration: 0 },
          ),
        ).rejects.toThrow();
        await expect(
          t.store.deletion.bulkDelete(admin, {
            items: [{ id: 'rf-1', revision: 1, generation: 0 }],
            includeCompressionChain: false,
          }),
        ).rejects.toThrow();
      } finally {
        await allowReceipts();
      }
      await t.store.hooks.idle();
      expect(heard).toEqual([]);
      expect((await t.store.receipts.list(admin, { after: 0, limit: 1 })).highWater).toBe(before);
      expect((await t.store.sessions.get(admin, 'rf-1')).messageCount).toBe(1);
      expect((await t.store.sessions.get(admin, 'rf-helper')).parentSessionId).toBe('rf-1');
      expect(
        (await t.store.routes.resolve(admin, { profile: 'rf', source: 'cli', sessionKey: 'agent:rf:cli:dm:1' }))
          .sessionId,
      ).toBe('rf-1');
      const found = await t.store.search.search(admin, { q: 'quokkasaurus', mode: 'word', limit: 5 });
      expect(found.items.map((hit) => hit.sessionId)).toEqual(['rf-1']);
      // Once receipts can be written again, the same delete goes through with its receipt.
      const done = await t.store.deletion.deleteOne(
        admin,
        'rf-1',
        { includeCompressionChain: false, ifEmpty: false },
        { ifMatch: 1, expectedGeneration: 0 },
      );
      expect(done.receipt).not.toBeNull();
      expect([...done.deletedIds].sort()).toEqual(['rf-1', 'rf-helper']);
    });
  });
}
