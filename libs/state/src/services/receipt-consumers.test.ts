import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../shared/errors.js';
import { adminPrincipal, contextOf, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`receipt consumer acknowledgements on ${dialect}`, () => {
    const t = useTestStore(dialect);
    const sequences: number[] = [];

    beforeAll(async () => {
      for (let i = 0; i < 4; i++) {
        const session = await t.store.sessions.create(admin, { id: `ack-${i}`, profile: 'ack', source: 'cli' });
        const deleted = await t.store.deletion.deleteOne(
          admin,
          session.id,
          { includeCompressionChain: false, ifEmpty: false },
          { ifMatch: session.revision, expectedGeneration: session.generation },
        );
        sequences.push(deleted.receipt!.sequence);
      }
    });

    it('[receipts.reclamation] never move back, and keep who registered the consumer', async () => {
      const first = await t.store.receipts.acknowledge(admin, 'seq', sequences[1]);
      await expect(t.store.receipts.acknowledge(admin, 'seq', sequences[0])).rejects.toBeInstanceOf(ConflictError);
      const again = await t.store.receipts.acknowledge(admin, 'seq', sequences[1]);
      expect(again.cursor).toBe(sequences[1]);
      const later = await t.store.receipts.acknowledge(admin, 'seq', sequences[3]);
      expect(later).toMatchObject({ cursor: sequences[3], createdAt: first.createdAt });
    });

    it('many concurrent acknowledgements end at the highest one', async () => {
      const cursors = [0, 3, 1, 2, 3, 0, 2, 1].map((i) => sequences[i]);
      const results = await Promise.allSettled(
        cursors.map((cursor) => t.store.receipts.acknowledge(admin, 'many', cursor)),
      );
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ConflictError);
      }
      const [consumer] = (await t.store.receipts.listConsumers(admin)).filter((row) => row.name === 'many');
      expect(consumer.cursor).toBe(sequences[3]);
    });

    if (dialect === 'postgres') {
      it('a lower acknowledgement that read before a higher one committed cannot overwrite it', async () => {
        await t.store.receipts.acknowledge(admin, 'racy', sequences[0]);
        const lockWaiters = async () =>
          Number(
            (
              await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock'`.execute(t.store.db)
            ).rows[0].n,
          );
        const waitFor = async (n: number) => {
          for (let i = 0; i < 400 && (await lockWaiters()) < n; i++) await new Promise((r) => setTimeout(r, 25));
          expect(await lockWaiters()).toBeGreaterThanOrEqual(n);
        };
        let high: Promise<unknown> | undefined;
        let low: Promise<unknown> | undefined;
        // Another transaction holds the consumer's row: both acknowledgements read cursor 0 (plain
        // reads do not wait), then queue on the row — the higher first, the lower behind it.
        await t.store.db.transaction().execute(async (trx) => {
          await sql`select cursor from receipt_consumers where name = 'racy' for update`.execute(trx);
          high = t.store.receipts.acknowledge(admin, 'racy', sequences[3]);
          high.catch(() => undefined);
          await waitFor(1);
          low = t.store.receipts.acknowledge(admin, 'racy', sequences[1]);
          low.catch(() => undefined);
          await waitFor(2);
        });
        await expect(high).resolves.toMatchObject({ cursor: sequences[3] });
        // Read-then-write let the lower one write last: the cursor moved back.
        await expect(low).rejects.toBeInstanceOf(ConflictError);
        const [consumer] = (await t.store.receipts.listConsumers(admin)).filter((row) => row.name === 'racy');
        expect(consumer.cursor).toBe(sequences[3]);
      });
    }
  });
}
