import type { DeletionReceipt } from '@statehouse/contracts';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDeletedEvent } from '../domain/hook-registry.js';
import { ManualClock } from '../shared/clock.js';
import { ConflictError, ForbiddenError, NotFoundError, SessionBusyError } from '../shared/errors.js';
import {
  adminPrincipal,
  aSession,
  contextOf,
  memberPrincipal,
  openTestStore,
  type SessionSpec,
  scanForIds,
  TEST_DIALECTS,
  type TestStore,
  tokensOf,
} from '../testing/index.js';
import { RETENTION_JOB } from './retention.service.js';

const admin = contextOf(adminPrincipal);
const dashboard = { ...admin, channel: 'dashboard' as const };
const DAY = 24 * 60 * 60 * 1000;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`deletion engine and receipts on ${dialect}`, () => {
    let t: TestStore;
    const clock = new ManualClock(Date.UTC(2026, 8, 1));
    let events: SessionDeletedEvent[] = [];
    let unsubscribe: () => void;
    let word = 0;

    /** A routed chat whose title, model config and text must all be gone after a deletion; returns its marker word. */
    const seed = async (id: string, extra: SessionSpec = {}, messages = true) => {
      const marker = `zq${dialect}${++word}marker`;
      await aSession(t.store, {
        id,
        profile: 'del',
        source: 'telegram',
        sessionKey: `agent:del:telegram:dm:${id}`,
        chatId: `chat-${id}`,
        chatType: 'dm',
        title: `Secret title ${id}`,
        modelConfig: { apiKey: 'never-in-receipts' },
        messages: messages
          ? [
              { role: 'user', content: `confidential ${marker} text` },
              { role: 'assistant', content: 'answer' },
            ]
          : [],
        advanceMs: 1000,
        ...extra,
      });
      return marker;
    };
    const receiptOf = async (operationId: string): Promise<DeletionReceipt> => t.store.receipts.get(admin, operationId);
    const assertGone = async (ids: string[], markers: string[]) => {
      await t.store.hooks.idle();
      expect(await scanForIds(t.store, ids)).toEqual([]);
      for (const marker of markers) {
        expect((await t.store.search.search(admin, { q: marker, mode: 'word', limit: 5 })).items).toEqual([]);
        const postings =
          dialect === 'sqlite'
            ? await sql`select rowid from messages_fts where messages_fts match ${`"${marker}"`}`.execute(t.store.db)
            : await sql`select id from messages where search_vector @@ to_tsquery('simple', ${marker})`.execute(
                t.store.db,
              );
        expect(postings.rows).toEqual([]);
      }
    };
    const expectOneEvent = (reason: string, origin: string, deletedIds: string[]) => {
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ reason, origin });
      expect([...events[0].deletedIds].sort()).toEqual([...deletedIds].sort());
    };
    const assertReceiptContentFree = (receipt: DeletionReceipt) => {
      const text = JSON.stringify(receipt);
      expect(text).not.toContain('Secret title');
      expect(text).not.toContain('confidential');
      expect(text).not.toContain('never-in-receipts');
      for (const identity of receipt.identities) {
        expect(Object.keys(identity).sort()).toEqual(
          [
            'chatId',
            'chatType',
            'createdSource',
            'id',
            'lineageKind',
            'parentSessionId',
            'profile',
            'role',
            'sessionKey',
            'source',
            'threadId',
          ].sort(),
        );
      }
    };

    beforeAll(async () => {
      t = await openTestStore(dialect, { clock, observerTimeoutMs: 200 });
      unsubscribe = t.store.hooks.onSessionDeleted((event) => {
        events.push(event);
      });
    });
    afterEach(async () => {
      await t.store.hooks.idle();
      events = [];
    });
    afterAll(async () => {
      unsubscribe?.();
      await t?.close();
    });

    it('[receipts.record] [observers.once-per-operation] [receipts.content-free] single delete: cascades delegates, orphans other children, writes a content-free receipt, fires once', async () => {
      const markers = [
        await seed('one'),
        await seed('one-helper', { parentSessionId: 'one', lineageKind: 'delegate', source: 'subagent' }),
      ];
      markers.push(
        await seed('one-helper-2', { parentSessionId: 'one-helper', lineageKind: 'delegate', source: 'subagent' }),
      );
      await seed('one-branch', { parentSessionId: 'one', lineageKind: 'branch' });
      const result = await t.store.deletion.deleteOne(
        dashboard,
        'one',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'one'),
      );
      expect(result.deletedIds.sort()).toEqual(['one', 'one-helper', 'one-helper-2']);
      await assertGone(result.deletedIds, markers);
      const receipt = await receiptOf(result.receipt!.operationId);
      expect(receipt).toMatchObject({
        origin: 'user_dashboard',
        intent: 'explicit_user',
        reason: 'user',
        profile: 'del',
      });
      expect(receipt.counts).toEqual({ sessions: 3, messages: 6, routes: 0, deliveries: 0, delegations: 0 });
      expect(receipt.identities.map((identity) => [identity.id, identity.role]).sort()).toEqual([
        ['one', 'selected'],
        ['one-helper', 'delegate_cascade'],
        ['one-helper-2', 'delegate_cascade'],
      ]);
      expect(receipt.identities.find((identity) => identity.id === 'one')).toMatchObject({
        sessionKey: 'agent:del:telegram:dm:one',
        chatId: 'chat-one',
        createdSource: 'telegram',
      });
      assertReceiptContentFree(receipt);
      await t.store.hooks.idle();
      expectOneEvent('user', 'user_dashboard', ['one', 'one-helper', 'one-helper-2']);
      expect(events[0]).toMatchObject({ sessionId: 'one', operationId: receipt.operationId, profile: 'del' });
      expect(await t.store.sessions.get(admin, 'one-branch')).toMatchObject({
        parentSessionId: null,
        lineageKind: null,
      });

      events = [];
      const before = (await t.store.receipts.list(admin, { after: 0, limit: 1000 })).highWater;
      await expect(
        t.store.deletion.deleteOne(
          admin,
          'one',
          { includeCompressionChain: false, ifEmpty: false },
          { ifMatch: 1, expectedGeneration: 0 },
        ),
      ).rejects.toBeInstanceOf(NotFoundError);
      await t.store.hooks.idle();
      expect(events).toEqual([]);
      expect((await t.store.receipts.list(admin, { after: 0, limit: 1000 })).highWater).toBe(before);
    });

    it('[deletion.no-resurrection] [deletion.paths] chain delete removes every segment; a single-segment delete leaves the rest as a conversation', async () => {
      const markers = [await seed('ch')];
      const first = await t.store.lineage.compress(
        admin,
        'ch',
        { summary: 'one', keepLastMessages: 1, childId: 'ch-2' },
        await tokensOf(t.store, 'ch'),
      );
      const second = await t.store.lineage.compress(
        admin,
        first.child.id,
        { summary: 'two', keepLastMessages: 1, childId: 'ch-3' },
        await tokensOf(t.store, 'ch-2'),
      );
      const result = await t.store.deletion.deleteOne(
        admin,
        second.child.id,
        { includeCompressionChain: true, ifEmpty: false },
        await tokensOf(t.store, 'ch-3'),
      );
      expect(result.deletedIds.sort()).toEqual(['ch', 'ch-2', 'ch-3']);
      const receipt = await receiptOf(result.receipt!.operationId);
      expect(receipt.identities.map((identity) => [identity.id, identity.role]).sort()).toEqual([
        ['ch', 'chain_member'],
        ['ch-2', 'chain_member'],
        ['ch-3', 'selected'],
      ]);
      await assertGone(result.deletedIds, markers);
      expectOneEvent('user', 'user_api', ['ch', 'ch-2', 'ch-3']);

      events = [];
      await seed('seg');
      await t.store.lineage.compress(
        admin,
        'seg',
        { summary: 's', keepLastMessages: 0, childId: 'seg-2' },
        await tokensOf(t.store, 'seg'),
      );
      const single = await t.store.deletion.deleteOne(
        admin,
        'seg-2',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'seg-2'),
      );
      expect(single.deletedIds).toEqual(['seg-2']);
      const listed = await t.store.sessions.list(admin, {
        profile: 'del',
        status: 'all',
        archived: 'include',
        includeChildren: false,
        limit: 200,
        order: 'recent',
      });
      expect(listed.items.map((item) => item.id)).toContain('seg');
    });

    it('[deletion.busy-guard] refuses a busy session (409) and writes nothing', async () => {
      await seed('busy');
      await t.store.turns.begin(admin, 'busy', { holder: 'w', ttlSeconds: 60 });
      const before = (await t.store.receipts.list(admin, { after: 0, limit: 1 })).highWater;
      await expect(
        t.store.deletion.deleteOne(
          admin,
          'busy',
          { includeCompressionChain: false, ifEmpty: false },
          await tokensOf(t.store, 'busy'),
        ),
      ).rejects.toBeInstanceOf(SessionBusyError);
      expect((await t.store.receipts.list(admin, { after: 0, limit: 1 })).highWater).toBe(before);
      clock.advance(61_000);
      const after = await t.store.deletion.deleteOne(
        admin,
        'busy',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'busy'),
      );
      expect(after.deletedIds).toEqual(['busy']);
    });

    it('[deletion.paths] delete-if-empty removes only an empty, childless, untitled, idle session', async () => {
      await seed('full');
      const full = await t.store.sessions.get(admin, 'full');
      await expect(
        t.store.deletion.deleteOne(
          admin,
          'full',
          { includeCompressionChain: false, ifEmpty: true },
          { ifMatch: full.revision },
        ),
      ).rejects.toBeInstanceOf(ConflictError);
      const empty = await aSession(t.store, { id: 'empty', profile: 'del', source: 'tui' });
      const result = await t.store.deletion.deleteOne(
        admin,
        'empty',
        { includeCompressionChain: false, ifEmpty: true },
        { ifMatch: empty.revision },
      );
      expect(result.deletedIds).toEqual(['empty']);
      const receipt = await receiptOf(result.receipt!.operationId);
      expect(receipt).toMatchObject({ origin: 'empty_discard', reason: 'empty', intent: 'maintenance' });
      await assertGone(['empty'], []);
      expectOneEvent('empty', 'empty_discard', ['empty']);
    });

    it('[deletion.paths] [deletion.busy-guard] bulk delete collapses duplicates, skips unknown, stale and busy ids, and writes one receipt per profile', async () => {
      const markers = [await seed('b1'), await seed('b2'), await seed('b3'), await seed('b4')];
      await aSession(t.store, { id: 'b-other', profile: 'del2' });
      await t.store.turns.begin(admin, 'b4', { holder: 'w', ttlSeconds: 600 });
      const [b1, b2, b3, b4, other] = await Promise.all(
        ['b1', 'b2', 'b3', 'b4', 'b-other'].map((id) => t.store.sessions.get(admin, id)),
      );
      const result = await t.store.deletion.bulkDelete(admin, {
        includeCompressionChain: false,
        items: [
          { id: 'b1', revision: b1.revision, generation: b1.generation },
          { id: 'b1', revision: b1.revision, generation: b1.generation },
          { id: 'b2', revision: b2.revision, generation: b2.generation },
          { id: 'b3', revision: b3.revision - 1, generation: b3.generation },
          { id: 'b4', revision: b4.revision, generation: b4.generation },
          { id: 'b-other', revision: other.revision, generation: other.generation },
          { id: 'nope', revision: 1, generation: 0 },
        ],
      });
      expect(result.deletedIds.sort()).toEqual(['b-other', 'b1', 'b2']);
      expect(result.skipped).toEqual([
        { id: 'b3', reason: 'revision_conflict' },
        { id: 'b4', reason: 'busy' },
        { id: 'nope', reason: 'not_found' },
      ]);
      expect(result.receipts).toHaveLength(2);
      const receipts = await Promise.all(result.receipts.map((ref) => receiptOf(ref.operationId)));
      expect(receipts.map((receipt) => receipt.profile).sort()).toEqual(['del', 'del2']);
      await assertGone(result.deletedIds, markers.slice(0, 2));
      await t.store.hooks.idle();
      // One observer call for the operation, naming both profiles (docs/domain.md §5.2).
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ reason: 'user', origin: 'user_api', receipts: result.receipts });
      expect(Object.keys(events[0].byProfile).sort()).toEqual(['del', 'del2']);
    });

    it('preview lists exactly what a delete takes and what it orphans', async () => {
      await seed('pv');
      await seed('pv-helper', { parentSessionId: 'pv', lineageKind: 'delegate', source: 'subagent' });
      await seed('pv-branch', { parentSessionId: 'pv', lineageKind: 'branch' });
      const preview = await t.store.deletion.preview(admin, { ids: ['pv', 'ghost-id'], includeCompressionChain: true });
      expect(preview.sessions.map((s) => [s.id, s.role])).toEqual([
        ['pv', 'selected'],
        ['pv-helper', 'delegate_cascade'],
      ]);
      expect(preview.orphaned).toEqual([{ id: 'pv-branch', lineageKind: 'branch' }]);
      expect(preview.missingIds).toEqual(['ghost-id']);
      expect(preview.counts).toEqual({ sessions: 2, messages: 4, routes: 0, deliveries: 0, delegations: 0 });
      const fenced = await t.store.deletion.preview(contextOf(memberPrincipal(['other'])), {
        ids: ['pv'],
        includeCompressionChain: false,
      });
      expect(fenced).toMatchObject({ sessions: [], missingIds: ['pv'] });
    });

    it('[deletion.paths] maintenance paths: empty sweep, ghost prune and never-active prune, each with its origin and a matching dry run', async () => {
      await aSession(t.store, { id: 'sweep-me', profile: 'maint', title: 'kept title' });
      await t.store.sessions.end(admin, 'sweep-me', { reason: 'cli_close' }, { ifMatch: 1 });
      await aSession(t.store, { id: 'sweep-archived', profile: 'maint' });
      await t.store.sessions.update(admin, 'sweep-archived', { archived: true }, { ifMatch: 1 });
      const archived = await t.store.sessions.get(admin, 'sweep-archived');
      await t.store.sessions.end(admin, 'sweep-archived', { reason: 'cli_close' }, { ifMatch: archived.revision });
      await t.store.hooks.idle();
      events = [];
      const dry = await t.store.deletion.emptySweep(admin, true);
      const real = await t.store.deletion.emptySweep(admin, false);
      expect(dry.candidates).toContain('sweep-me');
      expect(dry.candidates).not.toContain('sweep-archived');
      expect(real.deletedIds.sort()).toEqual([...dry.candidates].sort());
      expect(await receiptOf(real.receipt!.operationId)).toMatchObject({
        origin: 'empty_sweep',
        reason: 'empty_sweep',
        intent: 'maintenance',
      });
      await assertGone(real.deletedIds, []);
      await t.store.hooks.idle();
      expect(events.map((event) => [event.reason, event.origin])).toEqual(
        real.receipts.map(() => ['empty_sweep', 'empty_sweep']),
      );

      events = [];
      await aSession(t.store, { id: 'ghost', profile: 'maint' });
      await t.store.sessions.end(admin, 'ghost', { reason: 'agent_close' }, { ifMatch: 1 });
      expect((await t.store.deletion.ghostPrune(admin, true)).candidates).not.toContain('ghost');
      clock.advance(DAY + 1);
      const ghostDry = await t.store.deletion.ghostPrune(admin, true);
      const ghostReal = await t.store.deletion.ghostPrune(admin, false);
      expect(ghostDry.candidates).toContain('ghost');
      expect(ghostReal.deletedIds.sort()).toEqual([...ghostDry.candidates].sort());
      expect(await receiptOf(ghostReal.receipt!.operationId)).toMatchObject({
        origin: 'ghost_prune',
        reason: 'ghost_prune',
      });
      await t.store.hooks.idle();
      expect(events[0]).toMatchObject({ reason: 'ghost_prune', origin: 'ghost_prune' });

      events = [];
      await aSession(t.store, {
        id: 'keyed-idle',
        profile: 'maint',
        source: 'discord',
        sessionKey: 'agent:maint:discord:dm:1',
      });
      await aSession(t.store, {
        id: 'keyed-used',
        profile: 'maint',
        source: 'discord',
        sessionKey: 'agent:maint:discord:dm:2',
        messages: [{ role: 'user', content: 'hi' }],
      });
      clock.advance(3 * DAY);
      const naDry = await t.store.deletion.neverActivePrune(admin, { olderThanDays: 2, dryRun: true });
      const naReal = await t.store.deletion.neverActivePrune(admin, { olderThanDays: 2, dryRun: false });
      expect(naDry.candidates).toEqual(['keyed-idle']);
      expect(naReal.deletedIds).toEqual(['keyed-idle']);
      expect(await receiptOf(naReal.receipt!.operationId)).toMatchObject({
        origin: 'never_active_prune',
        reason: 'prune',
      });
      await assertGone(['keyed-idle'], []);
      await t.store.hooks.idle();
      expectOneEvent('prune', 'never_active_prune', ['keyed-idle']);
      await expect(t.store.deletion.emptySweep(contextOf(memberPrincipal(['maint'])), false)).rejects.toBeInstanceOf(
        ForbiddenError,
      );
    });

    it('[deletion.paths] retention prunes whole lineages only, keeps pinned ones, and the dry run lists what the real run removes', async () => {
      const start = clock.now();
      for (const id of ['ret-old', 'ret-pinned', 'ret-chain', 'ret-new']) {
        await aSession(t.store, {
          id,
          profile: 'ret',
          messages: [{ role: 'user', content: id }],
        });
      }
      await t.store.sessions.update(admin, 'ret-pinned', { pinned: true }, { ifMatch: 1 });
      await t.store.lineage.compress(
        admin,
        'ret-chain',
        { summary: 's', keepLastMessages: 0, childId: 'ret-chain-2' },
        await tokensOf(t.store, 'ret-chain'),
      );
      await seed('ret-old-helper', {
        profile: 'ret',
        parentSessionId: 'ret-old',
        lineageKind: 'delegate',
        source: 'subagent',
      });
      for (const id of ['ret-old', 'ret-pinned']) {
        await t.store.sessions.end(
          admin,
          id,
          { reason: 'cli_close' },
          { ifMatch: (await t.store.sessions.get(admin, id)).revision },
        );
      }
      clock.set(start + 40 * DAY);
      await t.store.sessions.end(
        admin,
        'ret-new',
        { reason: 'cli_close' },
        { ifMatch: (await t.store.sessions.get(admin, 'ret-new')).revision },
      );
      const dry = await t.store.deletion.retentionPrune(admin, { olderThanDays: 30, profile: 'ret', dryRun: true });
      const real = await t.store.deletion.retentionPrune(admin, { olderThanDays: 30, profile: 'ret', dryRun: false });
      expect([...dry.candidates].sort()).toEqual(['ret-old', 'ret-old-helper']);
      expect([...real.deletedIds].sort()).toEqual([...dry.candidates].sort());
      // ret-chain ended by compression long ago but its continuation is open: the chain is never split.
      expect((await t.store.sessions.get(admin, 'ret-chain')).endReason).toBe('compression');
      const receipt = await receiptOf(real.receipt!.operationId);
      expect(receipt).toMatchObject({ origin: 'retention', reason: 'prune', intent: 'maintenance' });
      await t.store.hooks.idle();
      expectOneEvent('prune', 'retention', ['ret-old', 'ret-old-helper']);

      events = [];
      await t.store.sessions.end(
        admin,
        'ret-chain-2',
        { reason: 'cli_close' },
        { ifMatch: (await t.store.sessions.get(admin, 'ret-chain-2')).revision },
      );
      clock.advance(31 * DAY);
      const chain = await t.store.deletion.retentionPrune(admin, { olderThanDays: 30, profile: 'ret', dryRun: false });
      expect(chain.deletedIds.sort()).toEqual(['ret-chain', 'ret-chain-2', 'ret-new']);
      const chainReceipt = await receiptOf(chain.receipt!.operationId);
      expect(
        chainReceipt.identities.filter((identity) => identity.role === 'chain_member').map((identity) => identity.id),
      ).toEqual(['ret-chain-2']);
    });

    it('the scheduled retention pass applies per-profile policies, one runner per interval', async () => {
      await aSession(t.store, { id: 'pol-old', profile: 'pol' });
      await t.store.sessions.end(admin, 'pol-old', { reason: 'cli_close' }, { ifMatch: 1 });
      await t.store.retention.put(admin, 'pol', 7);
      clock.advance(8 * DAY);
      t.store.jobs.configure(RETENTION_JOB, 60 * 60 * 1000);
      const [a, b] = await Promise.all([
        t.store.jobs.runNow(RETENTION_JOB, 'proc-a'),
        t.store.jobs.runNow(RETENTION_JOB, 'proc-b'),
      ]);
      expect([a.outcome, b.outcome].filter((outcome) => outcome === 'ran')).toHaveLength(1);
      expect([a, b].reduce((sum, report) => sum + Number(report.summary?.deleted ?? 0), 0)).toBe(1);
      await expect(t.store.sessions.get(admin, 'pol-old')).rejects.toBeInstanceOf(NotFoundError);
      const policies = await t.store.retention.list(admin);
      expect(policies.find((policy) => policy.profile === 'pol')).toEqual({ profile: 'pol', retentionDays: 7 });
    });

    it('[receipts.in-transaction] rolls back rows and receipt together when the operation fails after the receipt insert', async () => {
      const marker = await seed('rollback');
      const before = (await t.store.receipts.list(admin, { after: 0, limit: 1 })).highWater;
      t.store.deletionEngine.addParticipant({
        name: 'explodes',
        count: async () => 0,
        remove: async (_tx, ids) => {
          if (ids.includes('rollback')) throw new Error('injected failure after the receipt insert');
        },
      });
      await expect(
        t.store.deletion.deleteOne(
          admin,
          'rollback',
          { includeCompressionChain: false, ifEmpty: false },
          await tokensOf(t.store, 'rollback'),
        ),
      ).rejects.toThrow('injected failure');
      expect((await t.store.receipts.list(admin, { after: 0, limit: 1 })).highWater).toBe(before);
      expect((await t.store.sessions.get(admin, 'rollback')).id).toBe('rollback');
      expect((await t.store.search.search(admin, { q: marker, mode: 'word', limit: 5 })).items).toHaveLength(1);
      await t.store.hooks.idle();
      expect(events).toEqual([]);
    });

    it('[observers.fail-open] observers that throw or never resolve do not change the result', async () => {
      const off1 = t.store.hooks.onSessionDeleted(() => {
        throw new Error('observer exploded');
      });
      const off2 = t.store.hooks.onSessionDeleted(() => new Promise(() => undefined));
      try {
        await seed('obs');
        const result = await t.store.deletion.deleteOne(
          admin,
          'obs',
          { includeCompressionChain: false, ifEmpty: false },
          await tokensOf(t.store, 'obs'),
        );
        expect(result.deletedIds).toEqual(['obs']);
        expect(result.receipt).not.toBeNull();
        expect(events).toHaveLength(1);
      } finally {
        off1();
        off2();
      }
    });

    it('[observers.archive] archive notifies observers with reason archive and writes no receipt', async () => {
      await seed('arch');
      const before = (await t.store.receipts.list(admin, { after: 0, limit: 1 })).highWater;
      await t.store.sessions.update(
        admin,
        'arch',
        { archived: true },
        { ifMatch: (await t.store.sessions.get(admin, 'arch')).revision },
      );
      await t.store.hooks.idle();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ reason: 'archive', sessionId: 'arch', deletedIds: [], archivedIds: ['arch'] });
      expect((await t.store.receipts.list(admin, { after: 0, limit: 1 })).highWater).toBe(before);
    });

    it('[receipts.hash-chain] [receipts.replay] replays in order with filters, fences members, verifies the chain and detects tampering', async () => {
      const all = await t.store.receipts.list(admin, { after: 0, limit: 1000 });
      const sequences = all.items.map((receipt) => receipt.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      const page = await t.store.receipts.list(admin, { after: 0, limit: 2 });
      expect(page.items).toHaveLength(2);
      const next = await t.store.receipts.list(admin, { after: Number(page.nextCursor), limit: 2 });
      expect(next.items[0].sequence).toBeGreaterThan(page.items[1].sequence);
      // Newest first, for reading: the latest page, then the one below it, never overlapping.
      const latest = await t.store.receipts.list(admin, { after: 0, limit: 2, order: 'newest' });
      expect(latest.items.map((receipt) => receipt.sequence)).toEqual(sequences.slice(-2).reverse());
      const older = await t.store.receipts.list(admin, {
        after: 0,
        limit: 1000,
        order: 'newest',
        before: Number(latest.nextCursor),
      });
      expect(older.items.map((receipt) => receipt.sequence)).toEqual(sequences.slice(0, -2).reverse());
      expect(older.nextCursor).toBeNull();
      const maintenance = await t.store.receipts.list(admin, { after: 0, limit: 1000, intent: 'maintenance' });
      expect(maintenance.items.every((receipt) => receipt.intent === 'maintenance')).toBe(true);
      const member = contextOf(memberPrincipal(['del2']));
      const fenced = await t.store.receipts.list(member, { after: 0, limit: 1000 });
      expect(fenced.items.map((receipt) => receipt.profile)).toEqual(['del2']);
      const foreign = all.items.find((receipt) => receipt.profile === 'del')!;
      await expect(t.store.receipts.get(member, foreign.operationId)).rejects.toBeInstanceOf(NotFoundError);

      expect(await t.store.receipts.verify(admin)).toEqual({ ok: true, checked: all.items.length });
      const victim = all.items[1];
      await t.store.db
        .updateTable('deletion_receipts')
        .set({ reason: 'empty' })
        .where('sequence', '=', victim.sequence)
        .execute();
      expect(await t.store.receipts.verify(admin)).toMatchObject({ ok: false, firstBadSequence: victim.sequence });
      await t.store.db
        .updateTable('deletion_receipts')
        .set({ reason: victim.reason })
        .where('sequence', '=', victim.sequence)
        .execute();
      expect((await t.store.receipts.verify(admin)).ok).toBe(true);
    });

    it('[receipts.reclamation] reclaims with a floor: safe mode never passes the lowest acknowledgement, old cursors expire, sequences are never reused', async () => {
      const all = await t.store.receipts.list(admin, { after: 0, limit: 1000 });
      const [first, second, third] = all.items;
      await t.store.receipts.acknowledge(admin, 'search-indexer', second.sequence);
      await expect(t.store.receipts.acknowledge(admin, 'search-indexer', first.sequence)).rejects.toBeInstanceOf(
        ConflictError,
      );
      const safe = await t.store.receipts.reclaim(admin, { throughSequence: third.sequence, mode: 'safe' });
      expect(safe).toMatchObject({ floor: second.sequence, limitedBy: 'search-indexer' });
      await expect(t.store.receipts.list(admin, { after: first.sequence, limit: 10 })).rejects.toMatchObject({
        code: 'cursor_expired',
        floor: second.sequence,
      });
      const fromFloor = await t.store.receipts.list(admin, { after: second.sequence, limit: 10 });
      expect(fromFloor.items[0].sequence).toBe(third.sequence);
      // Reading newest first needs no cursor above the floor: it simply ends there.
      const newest = await t.store.receipts.list(admin, { after: 0, limit: 1000, order: 'newest' });
      expect(newest.items.at(-1)?.sequence).toBe(third.sequence);
      expect(await t.store.receipts.verify(admin)).toMatchObject({ ok: true });

      const forced = await t.store.receipts.reclaim(admin, { throughSequence: all.highWater, mode: 'force' });
      expect(forced.floor).toBe(all.highWater);
      expect((await t.store.receipts.list(admin, { after: all.highWater, limit: 10 })).items).toEqual([]);
      await seed('after-reclaim');
      const result = await t.store.deletion.deleteOne(
        admin,
        'after-reclaim',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'after-reclaim'),
      );
      expect(result.receipt!.sequence).toBeGreaterThan(all.highWater);
      expect(await t.store.receipts.verify(admin)).toEqual({ ok: true, checked: 1 });
      await expect(
        t.store.receipts.reclaim(contextOf(memberPrincipal(['del'])), { throughSequence: 1, mode: 'force' }),
      ).rejects.toBeInstanceOf(ForbiddenError);
    });

    it('[receipts.replay] watch streams receipts as they commit, bookmarks when idle, and expires below the floor', async () => {
      const floor = await t.store.receipts.floor();
      const controller = new AbortController();
      const stream = t.store.receipts.watch(
        admin,
        { after: floor },
        { signal: controller.signal, pollMs: 50, bookmarkMs: 100 },
      );
      const first = await stream.next();
      expect(first.value).toMatchObject({ type: 'receipt' });
      const bookmark = await stream.next();
      expect(bookmark.value).toMatchObject({ type: 'bookmark' });
      await seed('watched');
      const pending = stream.next();
      const deleted = await t.store.deletion.deleteOne(
        admin,
        'watched',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'watched'),
      );
      let event = (await pending).value;
      while (event?.type === 'bookmark') event = (await stream.next()).value;
      expect(event).toMatchObject({ type: 'receipt', receipt: { operationId: deleted.receipt!.operationId } });
      controller.abort();
      await stream.return(undefined);

      const expired = t.store.receipts.watch(admin, { after: 0 }, { signal: new AbortController().signal });
      expect((await expired.next()).value).toEqual({ type: 'expired', floor });
      expect((await expired.next()).done).toBe(true);
    });
  });
}
