import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import {
  ConflictError,
  NotFoundError,
  WakeClaimExpiredError,
  WakeClaimedError,
  WakeSettledError,
} from '../shared/errors.js';
import {
  acrossRestart,
  adminPrincipal,
  aSession,
  contextOf,
  memberPrincipal,
  TEST_DIALECTS,
  type TestStore,
  tokensOf,
} from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const SECOND = 1000;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`async delegations on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 6, 10));
    const t = useTestStore(dialect, { clock });
    const delegate = (id: string, originSessionId: string, extra: Record<string, unknown> = {}) =>
      t.store.delegations.create(admin, { id, originSessionId, task: { goal: `work ${id}` }, ...extra });
    const due = async (originSessionId: string) =>
      (await t.store.delegations.list(admin, { originSessionId, due: true, limit: 50 })).items.map((d) => d.id);

    it('[delegation.create-idempotent] records running work by id: the same content returns it, other content conflicts, unknown or foreign sessions are missing', async () => {
      await aSession(t.store, { id: 'dg-origin', profile: 'dg', source: 'telegram', lines: 1 });
      await aSession(t.store, {
        id: 'dg-child',
        profile: 'dg',
        lines: 1,
        parentSessionId: 'dg-origin',
        lineageKind: 'delegate',
        source: 'subagent',
      });
      await aSession(t.store, { id: 'dg-elsewhere', profile: 'other', source: 'telegram', lines: 1 });
      const first = await delegate('dg-1', 'dg-origin', { childSessionId: 'dg-child' });
      expect(first.created).toBe(true);
      expect(first.delegation).toMatchObject({
        profile: 'dg',
        originSessionId: 'dg-origin',
        childSessionId: 'dg-child',
        state: 'running',
        task: { goal: 'work dg-1' },
        resultSummary: null,
        due: false,
        claim: null,
      });
      expect(await delegate('dg-1', 'dg-origin', { childSessionId: 'dg-child' })).toEqual({
        created: false,
        delegation: first.delegation,
      });
      await expect(delegate('dg-1', 'dg-origin', { task: { goal: 'other' } })).rejects.toBeInstanceOf(ConflictError);
      await expect(delegate('dg-x', 'no-such-session')).rejects.toBeInstanceOf(NotFoundError);
      // A child in another profile is answered as missing (the owner fence of the origin's profile).
      await expect(delegate('dg-y', 'dg-origin', { childSessionId: 'dg-elsewhere' })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      const twins = await Promise.all([delegate('dg-twin', 'dg-origin'), delegate('dg-twin', 'dg-origin')]);
      expect(twins.map((result) => result.created).sort()).toEqual([false, true]);
    });

    it('[delegation.finish-once] the runner reports it done or failed once; the same report again is answered as it stands', async () => {
      await aSession(t.store, { id: 'fin-origin', profile: 'dg', source: 'telegram', lines: 1 });
      await aSession(t.store, {
        id: 'fin-child',
        profile: 'dg',
        lines: 1,
        parentSessionId: 'fin-origin',
        lineageKind: 'delegate',
        source: 'subagent',
      });
      await delegate('fin-1', 'fin-origin');
      clock.advance(SECOND);
      const done = await t.store.delegations.complete(admin, 'fin-1', {
        childSessionId: 'fin-child',
        resultSummary: 'found three flights',
      });
      expect(done).toMatchObject({
        state: 'done',
        childSessionId: 'fin-child',
        resultSummary: 'found three flights',
        due: true,
      });
      expect(done.completedAt).toBe(new Date(clock.now()).toISOString());
      expect(await t.store.delegations.complete(admin, 'fin-1', { resultSummary: 'found three flights' })).toEqual(
        done,
      );
      await expect(t.store.delegations.complete(admin, 'fin-1', { resultSummary: 'other' })).rejects.toBeInstanceOf(
        ConflictError,
      );
      await expect(t.store.delegations.fail(admin, 'fin-1', { error: 'boom' })).rejects.toBeInstanceOf(ConflictError);

      await delegate('fin-2', 'fin-origin');
      const failed = await t.store.delegations.fail(admin, 'fin-2', { error: 'the sub-agent ran out of budget' });
      expect(failed).toMatchObject({ state: 'failed', error: 'the sub-agent ran out of budget', due: true });
      expect(await t.store.delegations.fail(admin, 'fin-2', { error: 'the sub-agent ran out of budget' })).toEqual(
        failed,
      );
    });

    it('[delegation.due] the origin’s gateway lists what is due — finished, undelivered, unclaimed — oldest finished first', async () => {
      await aSession(t.store, { id: 'due-origin', profile: 'dg', source: 'telegram', lines: 1 });
      await aSession(t.store, { id: 'due-other', profile: 'dg', source: 'telegram', lines: 1 });
      for (const id of ['due-a', 'due-b', 'due-c', 'due-run']) await delegate(id, 'due-origin');
      await delegate('due-foreign', 'due-other');
      await t.store.delegations.complete(admin, 'due-b', { resultSummary: 'b' });
      clock.advance(SECOND);
      await t.store.delegations.fail(admin, 'due-a', { error: 'a failed' });
      clock.advance(SECOND);
      await t.store.delegations.complete(admin, 'due-c', { resultSummary: 'c' });
      await t.store.delegations.complete(admin, 'due-foreign', { resultSummary: 'x' });
      expect(await due('due-origin')).toEqual(['due-b', 'due-a', 'due-c']);
      // Paged in the same order.
      const first = await t.store.delegations.list(admin, { originSessionId: 'due-origin', due: true, limit: 2 });
      expect(first.items.map((d) => d.id)).toEqual(['due-b', 'due-a']);
      const rest = await t.store.delegations.list(admin, {
        originSessionId: 'due-origin',
        due: true,
        limit: 2,
        cursor: first.nextCursor!,
      });
      expect(rest).toMatchObject({ items: [{ id: 'due-c' }], nextCursor: null });
      // A live claim takes it off the list; its lapse puts it back.
      await t.store.delegations.claim(admin, 'due-b', { holder: 'gw-1', leaseSeconds: 30 });
      expect(await due('due-origin')).toEqual(['due-a', 'due-c']);
      clock.advance(31 * SECOND);
      expect(await due('due-origin')).toEqual(['due-b', 'due-a', 'due-c']);
      // Everything of the origin, newest first.
      const all = await t.store.delegations.list(admin, { originSessionId: 'due-origin', limit: 50 });
      expect(all.items.map((d) => d.id)).toEqual(['due-run', 'due-c', 'due-b', 'due-a']);
    });

    it('[delegation.wake-once] a wake-up is claimed under a lease and acknowledged delivered exactly once', async () => {
      await aSession(t.store, { id: 'wk-origin', profile: 'dg', source: 'telegram', lines: 1 });
      await delegate('wk-1', 'wk-origin');
      await expect(
        t.store.delegations.claim(admin, 'wk-1', { holder: 'gw-1', leaseSeconds: 30 }),
      ).rejects.toBeInstanceOf(WakeSettledError);
      await t.store.delegations.complete(admin, 'wk-1', { resultSummary: 'ok' });

      // Two gateways race for it: one claim.
      const race = await Promise.allSettled([
        t.store.delegations.claim(admin, 'wk-1', { holder: 'gw-1', leaseSeconds: 30 }),
        t.store.delegations.claim(admin, 'wk-1', { holder: 'gw-2', leaseSeconds: 30 }),
      ]);
      const won = race.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<
        Awaited<ReturnType<TestStore['store']['delegations']['claim']>>
      >[];
      expect(won).toHaveLength(1);
      expect((race.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(
        WakeClaimedError,
      );
      const claim = won[0].value.claim!;
      expect(won[0].value).toMatchObject({ wakeAttempts: 1, due: false });
      // The holder asking again extends its lease without another attempt.
      expect(await t.store.delegations.claim(admin, 'wk-1', { holder: claim.holder, leaseSeconds: 60 })).toMatchObject({
        wakeAttempts: 1,
        claim: { claimId: claim.claimId },
      });

      // Its claim lapses and another gateway takes over: the first claim is stale.
      clock.advance(61 * SECOND);
      const other = claim.holder === 'gw-1' ? 'gw-2' : 'gw-1';
      const second = await t.store.delegations.claim(admin, 'wk-1', { holder: other, leaseSeconds: 30 });
      expect(second.wakeAttempts).toBe(2);
      await expect(t.store.delegations.delivered(admin, 'wk-1', { claimId: claim.claimId })).rejects.toBeInstanceOf(
        WakeClaimExpiredError,
      );
      const delivered = await t.store.delegations.delivered(admin, 'wk-1', { claimId: second.claim!.claimId });
      expect(delivered).toMatchObject({ state: 'delivered', due: false, claim: null });
      expect(delivered.deliveredAt).toBe(new Date(clock.now()).toISOString());
      // The same acknowledgement again changes nothing; any other is refused.
      clock.advance(SECOND);
      expect(await t.store.delegations.delivered(admin, 'wk-1', { claimId: second.claim!.claimId })).toEqual(delivered);
      await expect(t.store.delegations.delivered(admin, 'wk-1', { claimId: claim.claimId })).rejects.toBeInstanceOf(
        WakeSettledError,
      );
      await expect(
        t.store.delegations.claim(admin, 'wk-1', { holder: 'gw-3', leaseSeconds: 30 }),
      ).rejects.toBeInstanceOf(WakeSettledError);
      expect(await due('wk-origin')).toEqual([]);

      // A claim that lapsed with nobody taking over still acknowledges (the wake-up happened).
      await delegate('wk-2', 'wk-origin');
      await t.store.delegations.fail(admin, 'wk-2', { error: 'e' });
      const lapsed = await t.store.delegations.claim(admin, 'wk-2', { holder: 'gw-1', leaseSeconds: 5 });
      clock.advance(10 * SECOND);
      expect(await t.store.delegations.delivered(admin, 'wk-2', { claimId: lapsed.claim!.claimId })).toMatchObject({
        state: 'delivered',
      });

      // Release hands it back: due at once, and the released claim is stale.
      await delegate('wk-3', 'wk-origin');
      await t.store.delegations.complete(admin, 'wk-3', {});
      const held = await t.store.delegations.claim(admin, 'wk-3', { holder: 'gw-1', leaseSeconds: 30 });
      expect(await t.store.delegations.release(admin, 'wk-3', { claimId: held.claim!.claimId })).toMatchObject({
        due: true,
        claim: null,
      });
      await expect(
        t.store.delegations.delivered(admin, 'wk-3', { claimId: held.claim!.claimId }),
      ).rejects.toBeInstanceOf(WakeClaimExpiredError);
    });

    it('[delegation.wake-once] claim-next from two gateways gives every due wake-up exactly one of them, of the named origin only', async () => {
      await aSession(t.store, { id: 'cn-origin', profile: 'dg', source: 'telegram', lines: 1 });
      await aSession(t.store, { id: 'cn-other', profile: 'dg', source: 'telegram', lines: 1 });
      for (let i = 0; i < 6; i++) {
        await delegate(`cn-${i}`, 'cn-origin');
        await t.store.delegations.complete(admin, `cn-${i}`, { resultSummary: String(i) });
      }
      await delegate('cn-else', 'cn-other');
      await t.store.delegations.complete(admin, 'cn-else', {});
      const [a, b] = await Promise.all([
        t.store.delegations.claimDue(admin, {
          holder: 'gw-a',
          leaseSeconds: 30,
          originSessionId: 'cn-origin',
          limit: 4,
        }),
        t.store.delegations.claimDue(admin, {
          holder: 'gw-b',
          leaseSeconds: 30,
          originSessionId: 'cn-origin',
          limit: 4,
        }),
      ]);
      const ids = [...a.items, ...b.items].map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(['cn-0', 'cn-1', 'cn-2', 'cn-3', 'cn-4', 'cn-5']);
      expect((await t.store.delegations.get(admin, 'cn-else')).due).toBe(true);
    });

    it('[delegation.ledger] owner-fenced by the origin’s profile: a member outside it sees nothing and changes nothing', async () => {
      await aSession(t.store, { id: 'fence-origin', profile: 'fenced', source: 'telegram', lines: 1 });
      await delegate('fence-1', 'fence-origin');
      const stranger = contextOf(memberPrincipal(['dg']));
      await expect(t.store.delegations.get(stranger, 'fence-1')).rejects.toBeInstanceOf(NotFoundError);
      await expect(t.store.delegations.complete(stranger, 'fence-1', {})).rejects.toBeInstanceOf(NotFoundError);
      await expect(
        t.store.delegations.create(stranger, { id: 'fence-2', originSessionId: 'fence-origin' }),
      ).rejects.toBeInstanceOf(NotFoundError);
      // Reusing a foreign id is a conflict, never a view of the other profile's row.
      await aSession(t.store, { id: 'fence-mine', profile: 'dg', source: 'telegram', lines: 1 });
      await expect(
        t.store.delegations.create(stranger, { id: 'fence-1', originSessionId: 'fence-mine' }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect((await t.store.delegations.list(stranger, { originSessionId: 'fence-origin', limit: 50 })).items).toEqual(
        [],
      );
      expect(
        (await t.store.delegations.claimDue(stranger, { holder: 'gw', leaseSeconds: 30, limit: 10, profile: 'fenced' }))
          .items,
      ).toEqual([]);
      const member = contextOf(memberPrincipal(['fenced']));
      expect((await t.store.delegations.get(member, 'fence-1')).originSessionId).toBe('fence-origin');
    });

    it('[delegation.origin-deleted] deleting the origin abandons what it was owed, erases task, result and error, and the receipt counts it', async () => {
      await aSession(t.store, { id: 'od-origin', profile: 'dg', source: 'telegram', lines: 1 });
      await aSession(t.store, {
        id: 'od-child',
        profile: 'dg',
        lines: 1,
        parentSessionId: 'od-origin',
        lineageKind: 'delegate',
        source: 'subagent',
      });
      await delegate('od-running', 'od-origin', { childSessionId: 'od-child' });
      await delegate('od-done', 'od-origin');
      await t.store.delegations.complete(admin, 'od-done', { resultSummary: 'secret result' });
      await delegate('od-delivered', 'od-origin');
      await t.store.delegations.complete(admin, 'od-delivered', { resultSummary: 'old result' });
      const claimed = await t.store.delegations.claim(admin, 'od-delivered', { holder: 'gw', leaseSeconds: 30 });
      await t.store.delegations.delivered(admin, 'od-delivered', { claimId: claimed.claim!.claimId });

      const outcome = await t.store.deletion.deleteOne(
        admin,
        'od-origin',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'od-origin'),
      );
      const receipt = await t.store.receipts.get(admin, outcome.receipt!.operationId);
      expect(receipt.counts).toMatchObject({ sessions: 2, delegations: 2 });
      const rows = await t.store.delegations.list(admin, { originSessionId: 'od-origin', limit: 50 });
      expect(
        rows.items.map((d) => [d.id, d.state, d.abandonedReason, d.task, d.resultSummary, d.error, d.due]).sort(),
      ).toEqual([
        ['od-delivered', 'delivered', null, null, null, null, false],
        ['od-done', 'abandoned', 'origin_deleted', null, null, null, false],
        ['od-running', 'abandoned', 'origin_deleted', null, null, null, false],
      ]);
      await expect(t.store.delegations.complete(admin, 'od-running', {})).rejects.toBeInstanceOf(ConflictError);
      await expect(
        t.store.delegations.claim(admin, 'od-done', { holder: 'gw', leaseSeconds: 30 }),
      ).rejects.toBeInstanceOf(WakeSettledError);
    });

    it('[delegation.child-deleted] deleting the child fails what the origin is still owed (child_deleted) and erases the result, so the origin is woken and told', async () => {
      await aSession(t.store, { id: 'cd-origin', profile: 'dg', source: 'telegram', lines: 1 });
      for (const id of ['cd-child-1', 'cd-child-2', 'cd-child-3']) {
        // Children of their own (not delegates of the origin): deleting one leaves the origin.
        await aSession(t.store, { id, profile: 'dg', lines: 1, source: 'subagent' });
      }
      await delegate('cd-running', 'cd-origin', { childSessionId: 'cd-child-1' });
      await delegate('cd-done', 'cd-origin', { childSessionId: 'cd-child-2' });
      await t.store.delegations.complete(admin, 'cd-done', { resultSummary: 'summary of child 2' });
      await delegate('cd-failed', 'cd-origin', { childSessionId: 'cd-child-3' });
      await t.store.delegations.fail(admin, 'cd-failed', { error: 'its own error' });

      const items = [];
      for (const id of ['cd-child-1', 'cd-child-2', 'cd-child-3']) {
        const s = await t.store.sessions.get(admin, id);
        items.push({ id, revision: s.revision, generation: s.generation });
      }
      const outcome = await t.store.deletion.bulkDelete(admin, { items, includeCompressionChain: false });
      const counted = await Promise.all(
        outcome.receipts.map(async (ref) => (await t.store.receipts.get(admin, ref.operationId)).counts.delegations),
      );
      expect(counted.reduce((sum, n) => sum! + (n ?? 0), 0)).toBe(3);
      const rows = await t.store.delegations.list(admin, { originSessionId: 'cd-origin', limit: 50 });
      expect(rows.items.map((d) => [d.id, d.state, d.error, d.resultSummary, d.due]).sort()).toEqual([
        ['cd-done', 'failed', 'child_deleted', null, true],
        ['cd-failed', 'failed', 'its own error', null, true],
        ['cd-running', 'failed', 'child_deleted', null, true],
      ]);
      expect(await due('cd-origin')).toHaveLength(3);
    });

    it('[delegation.profile-moves] a rename moves the ledger, a repair move takes the origin’s along, a profile delete with its sessions settles it', async () => {
      await aSession(t.store, { id: 'pm-origin', profile: 'pm-old', source: 'telegram', lines: 1 });
      await delegate('pm-1', 'pm-origin');
      const renamed = await t.store.profileAdmin.rename(admin, 'pm-old', 'pm-new');
      expect(renamed.counts.delegations).toBe(1);
      expect((await t.store.delegations.get(admin, 'pm-1')).profile).toBe('pm-new');

      await t.store.profiles.create(admin, 'pm-target');
      const moved = await t.store.profileAdmin.move(admin, 'pm-origin', 'pm-target');
      expect(moved.movedIds).toEqual(['pm-origin']);
      expect(await t.store.delegations.get(admin, 'pm-1')).toMatchObject({ profile: 'pm-target', state: 'running' });
      // The move is no deletion: nothing was abandoned, and its receipt counts none.
      const receipt = await t.store.receipts.get(admin, moved.receipt!.operationId);
      expect(receipt.counts.delegations).toBe(0);
      const member = contextOf(memberPrincipal(['pm-target']));
      expect((await t.store.delegations.get(member, 'pm-1')).originSessionId).toBe('pm-origin');

      const deleted = await t.store.profileAdmin.delete(admin, 'pm-target', { deleteSessions: true, dryRun: false });
      expect(deleted.profileRemoved).toBe(true);
      expect(await t.store.delegations.get(admin, 'pm-1')).toMatchObject({
        state: 'abandoned',
        abandonedReason: 'origin_deleted',
        task: null,
      });
    });

    it('[retention.spares-living] retention spares the origin of a delegation not yet delivered, and prunes it once woken', async () => {
      for (const id of ['ret-origin', 'ret-control']) {
        await aSession(t.store, { id, profile: 'retg', source: 'telegram', lines: 1 });
        const s = await t.store.sessions.get(admin, id);
        await t.store.sessions.end(admin, id, { reason: 'cli_close' }, { ifMatch: s.revision });
      }
      await delegate('ret-1', 'ret-origin');
      clock.advance(2 * 86_400 * SECOND);
      const candidates = async () =>
        (await t.store.deletion.retentionPrune(admin, { olderThanDays: 1, profile: 'retg', dryRun: true })).candidates;
      expect(await candidates()).toEqual(['ret-control']);
      // Finished: still owed to wake its origin.
      await t.store.delegations.complete(admin, 'ret-1', { resultSummary: 'late result' });
      expect(await candidates()).toEqual(['ret-control']);
      const claimed = await t.store.delegations.claim(admin, 'ret-1', { holder: 'gw', leaseSeconds: 30 });
      await t.store.delegations.delivered(admin, 'ret-1', { claimId: claimed.claim!.claimId });
      expect((await candidates()).sort()).toEqual(['ret-control', 'ret-origin']);
    });
  });

  describe.skipIf(!available)(`async delegations across a restart on ${dialect}`, () => {
    it('[delegation.ledger] the ledger and a due wake-up survive a restart of the store', async () => {
      await acrossRestart(
        dialect,
        async (first) => {
          await first.sessions.create(admin, { id: 'rs-origin', profile: 'rs', source: 'cli' });
          await first.delegations.create(admin, { id: 'rs-1', originSessionId: 'rs-origin', task: { goal: 'g' } });
          await first.delegations.complete(admin, 'rs-1', { resultSummary: 'kept' });
        },
        async (second) => {
          const due = await second.delegations.list(admin, { originSessionId: 'rs-origin', due: true, limit: 10 });
          expect(due.items).toMatchObject([{ id: 'rs-1', state: 'done', resultSummary: 'kept', task: { goal: 'g' } }]);
        },
      );
    });
  });
}
