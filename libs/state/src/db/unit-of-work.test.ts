import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalKey } from '../shared/access.js';
import { systemClock } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { IdempotencyConflictError } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { adminPrincipal, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { PreparedQuery } from './prepared.js';
import { UnitOfWork } from './unit-of-work.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`unit of work and idempotency records on ${dialect}`, () => {
    let t: TestStore;
    const records = new IdempotencyRepository();

    beforeAll(async () => {
      t = await openTestStore(dialect);
    });
    afterAll(async () => t?.close());

    const claimed = (key: string): OperationContext => ({
      ...contextOf(adminPrincipal),
      idempotency: { key, fingerprint: `fp-${key}`, status: 201, recorded: false },
    });

    it('writes the record in the same transaction as the effect', async () => {
      const ctx = claimed('same-tx');
      const session = await t.store.sessions.create(ctx, { profile: 'p', source: 'cli' });
      const record = await records.find(t.store.db, principalKey(adminPrincipal), 'same-tx');
      expect(record && JSON.parse(record.body!)).toEqual(session);
      expect(ctx.idempotency?.recorded).toBe(true);
      const replay = await t.store.idempotency.lookup(adminPrincipal, 'same-tx', 'fp-same-tx');
      expect(replay).toEqual({ kind: 'replay', status: 201, body: session });
      await expect(t.store.idempotency.lookup(adminPrincipal, 'same-tx', 'other')).rejects.toBeInstanceOf(
        IdempotencyConflictError,
      );
    });

    it('leaves neither effect nor record when the operation rolls back', async () => {
      await t.store.sessions.create(contextOf(adminPrincipal), { id: 'taken', profile: 'p', source: 'cli' });
      await expect(
        t.store.sessions.create(claimed('rolled-back'), { id: 'taken', profile: 'p', source: 'cli' }),
      ).rejects.toThrow();
      expect(await records.find(t.store.db, principalKey(adminPrincipal), 'rolled-back')).toBeUndefined();
    });

    it('runs post-commit effects only after commit and survives a failing effect', async () => {
      const order: string[] = [];
      const uow = (
        t.store.sessions as unknown as {
          uow: { run: (ctx: null, work: (tx: unknown) => Promise<void>) => Promise<void> };
        }
      ).uow;
      await uow.run(null, async (tx) => {
        (tx as { afterCommit: (effect: () => void) => void }).afterCommit(() => {
          order.push('effect-1');
          throw new Error('observer exploded');
        });
        (tx as { afterCommit: (effect: () => void) => void }).afterCommit(() => {
          order.push('effect-2');
        });
        order.push('work');
      });
      expect(order).toEqual(['work', 'effect-1', 'effect-2']);
      await expect(
        uow.run(null, async (tx) => {
          (tx as { afterCommit: (effect: () => void) => void }).afterCommit(() => {
            order.push('never');
          });
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect(order).not.toContain('never');
    });

    it('a read-only unit reads outside any transaction, and a write it tries throws before it runs', async () => {
      const uow = new UnitOfWork(t.store.db, dialect, systemClock, silentLogger);
      await t.store.sessions.create(contextOf(adminPrincipal), { id: 'read-only', profile: 'p', source: 'cli' });
      const rename = new PreparedQuery<'id'>((db, param) =>
        db.updateTable('sessions').set({ title: 'renamed' }).where('id', '=', param('id')),
      );
      // Compiled on the store (as a repository's statement would be), then tried in the read-only unit.
      await rename.execute(t.store.db, { id: 'nobody' });
      const read = await uow.readOnly((tx) =>
        tx.db.selectFrom('sessions').select('id').where('id', '=', 'read-only').executeTakeFirst(),
      );
      expect(read).toEqual({ id: 'read-only' });
      await expect(
        uow.readOnly((tx) =>
          tx.db.updateTable('sessions').set({ title: 'renamed' }).where('id', '=', 'read-only').execute(),
        ),
      ).rejects.toThrow(/tried to write/);
      await expect(uow.readOnly((tx) => rename.execute(tx.db, { id: 'read-only' }))).rejects.toThrow(/tried to write/);
      await expect(
        uow.readOnly((tx) => sql`delete from sessions where id = 'read-only'`.execute(tx.db)),
      ).rejects.toThrow(/tried to write/);
      expect((await t.store.sessions.get(contextOf(adminPrincipal), 'read-only')).title).toBeNull();
    });
  });
}
