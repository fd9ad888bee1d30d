import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DB } from '../../db/database.js';
import { ImportLedgerRepository } from '../../repositories/import-ledger.repository.js';
import {
  dumpImportedState,
  HermesFixture,
  importHermes,
  SCENARIO_T0,
  TEST_DIALECTS,
  type TestStore,
} from '../../testing/index.js';
import { type Scratch, useScratch } from '../../testing/suites.js';
import type { HermesSplitTuning } from '../import.service.js';

/**
 * A session imported before is decided (update, conflict, resume) from its ledger — one entry per
 * message imported. That read happens before the unit of work, holding no lock; the unit checks
 * cheaply that it still holds and reads again only when it does not.
 */
const t0 = SCENARIO_T0;
const SPLIT: HermesSplitTuning = { splitSessionsAbove: 300, maxSessionChunk: 200 };
const FIRST = 1200;

function sourceFile(scratch: Scratch, messages: number): string {
  return HermesFixture.write(scratch.path('hermes-ledger-'), 30, (f) => {
    f.session({ id: 'long', source: 'cli', profile_name: 'ledger', title: 'Long', started_at: t0 });
    for (let i = 0; i < messages; i++) {
      f.message('long', { role: i % 2 ? 'assistant' : 'user', content: `line ${i}`, timestamp: t0 + i });
    }
  });
}

/** Every read of a session's message entries: inside a transaction or not. */
function watchLedgerReads(after?: (db: Kysely<DB>) => Promise<void>) {
  const reads: { inTransaction: boolean }[] = [];
  const original = ImportLedgerRepository.prototype.messagesOf;
  vi.spyOn(ImportLedgerRepository.prototype, 'messagesOf').mockImplementation(async function (
    this: ImportLedgerRepository,
    db,
    sessionId,
  ) {
    const result = await original.call(this, db, sessionId);
    reads.push({ inTransaction: db.isTransaction });
    if (!db.isTransaction) await after?.(db as Kysely<DB>);
    return result;
  });
  return reads;
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(
    `Hermes import reads a session's ledger ahead on ${dialect}`,
    { timeout: 180_000 },
    () => {
      const scratch = useScratch(dialect);
      const run = (t: TestStore, path: string, split = SPLIT) => importHermes(t, { path, profile: 'ledger', split });
      afterEach(() => {
        vi.restoreAllMocks();
      });

      it('an update of a large session imported before reads its ledger outside every transaction', async () => {
        const before = sourceFile(scratch, FIRST);
        const after = sourceFile(scratch, FIRST + 10);
        const t = await scratch.open();
        await run(t, before);
        const reference = await scratch.open();
        await run(reference, before);
        await run(reference, after, { splitSessionsAbove: 1_000_000_000 });

        const reads = watchLedgerReads();
        const updated = await run(t, after);
        expect(updated.report.sessions).toEqual({ created: 0, updated: 1, skipped: 0, conflicts: 0 });
        expect(updated.report.messages).toMatchObject({ created: 10, skipped: FIRST });
        expect(reads.length).toBeGreaterThan(0);
        expect(reads.filter((read) => read.inTransaction)).toEqual([]);
        expect(await dumpImportedState(t.store)).toEqual(await dumpImportedState(reference.store));
      });

      it('a resumed half-imported session reads its ledger outside every transaction', async () => {
        const path = sourceFile(scratch, FIRST);
        const t = await scratch.open();
        await expect(
          run(t, path, {
            ...SPLIT,
            betweenSessionChunks: async ({ messagesWritten }) => {
              if (messagesWritten >= 600) throw new Error('simulated crash');
            },
          }),
        ).rejects.toThrow('simulated crash');
        const reference = await scratch.open();
        await run(reference, path);

        const reads = watchLedgerReads();
        await run(t, path);
        expect(reads.length).toBeGreaterThan(0);
        expect(reads.filter((read) => read.inTransaction)).toEqual([]);
        expect(await dumpImportedState(t.store)).toEqual(await dumpImportedState(reference.store));
      });

      it('entries that changed between the read ahead and the unit are read again inside it', async () => {
        const before = sourceFile(scratch, FIRST);
        const after = sourceFile(scratch, FIRST + 10);
        // The newest message entry goes away meanwhile (as a purge's first chunk would take it): the
        // import must decide from the ledger as it is then, as the reference (changed before) does.
        const dropNewest = async (db: Kysely<DB>) => {
          const top = await db
            .selectFrom('import_messages')
            .select((eb) => eb.fn.max('source_message_id').as('top'))
            .where('session_id', '=', 'long')
            .executeTakeFirstOrThrow();
          await db
            .deleteFrom('import_messages')
            .where('session_id', '=', 'long')
            .where('source_message_id', '=', Number(top.top))
            .execute();
        };
        const reference = await scratch.open();
        await run(reference, before);
        await dropNewest(reference.store.db);
        await run(reference, after);

        const t = await scratch.open();
        await run(t, before);
        let dropped = false;
        const reads = watchLedgerReads(async () => {
          if (dropped) return;
          dropped = true;
          await dropNewest(t.store.db);
        });
        const updated = await run(t, after);
        expect(dropped).toBe(true);
        expect(reads.filter((read) => read.inTransaction)).toHaveLength(1);
        // The entry gone, its message counts as new again (the reference did the same).
        expect(updated.report.messages).toMatchObject({ created: 11 });
        expect(await dumpImportedState(t.store)).toEqual(await dumpImportedState(reference.store));
      });
    },
  );
}
