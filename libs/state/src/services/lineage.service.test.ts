import { describe, expect, it } from 'vitest';
import { ConversationGenerationRepository } from '../repositories/conversation-generation.repository.js';
import { ManualClock } from '../shared/clock.js';
import {
  PreconditionRequiredError,
  ReopenNotPermittedError,
  RevisionConflictError,
  SessionBusyError,
  SessionClosedError,
  StaleGenerationError,
} from '../shared/errors.js';
import {
  adminPrincipal,
  aSession,
  contextOf,
  EVERY_MESSAGE,
  type SessionSpec,
  TEST_DIALECTS,
  tokensOf,
} from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const all = { limit: 1000, ...EVERY_MESSAGE } as const;
const listAll = { status: 'all', archived: 'include', includeChildren: false, limit: 200, order: 'recent' } as const;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`lineage operations on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 6, 1));
    const t = useTestStore(dialect, { clock });
    /** A routed chat with a hidden scaffold and a tool call in its transcript: what compress and branch copy. */
    const seed = (id: string, profile = 'lin', extra: SessionSpec = {}) =>
      aSession(t.store, {
        id,
        profile,
        source: 'telegram',
        sessionKey: `agent:${profile}:telegram:dm:${id}`,
        title: `Title ${id}`,
        messages: [
          { role: 'system', content: 'scaffold', displayKind: 'hidden' },
          { role: 'user', content: `hello from ${id}` },
          { role: 'assistant', content: 'first answer', toolCalls: [{ id: 't1' }] },
          { role: 'user', content: 'second question' },
          { role: 'assistant', content: 'second answer' },
        ],
        advanceMs: 1000,
        ...extra,
      });

    it('[lineage.compress] compress writes child, summary and tail, archives the parent and moves the title, atomically', async () => {
      await seed('cp');
      const { child, parent } = await t.store.lineage.compress(
        admin,
        'cp',
        { summary: 'Summary of the chat so far', keepLastMessages: 2 },
        await tokensOf(t.store, 'cp'),
      );
      expect(parent).toMatchObject({ endReason: 'compression', title: null });
      expect(child).toMatchObject({
        parentSessionId: 'cp',
        lineageKind: 'compression',
        title: 'Title cp',
        sessionKey: 'agent:lin:telegram:dm:cp',
        messageCount: 3,
        endedAt: null,
      });
      const childMessages = await t.store.messages.list(admin, child.id, all);
      expect(childMessages.items.map((m) => [m.role, m.content, m.displayKind])).toEqual([
        ['system', 'Summary of the chat so far', 'compaction_summary'],
        ['user', 'second question', 'visible'],
        ['assistant', 'second answer', 'visible'],
      ]);
      const parentMessages = await t.store.messages.list(admin, 'cp', all);
      expect(parentMessages.items.filter((m) => m.active).every((m) => m.compacted)).toBe(true);
      // Compacted rows stay searchable.
      const hits = await t.store.search.search(admin, { q: 'first answer', mode: 'word', limit: 20 });
      expect(hits.items.map((hit) => [hit.sessionId, hit.tipSessionId])).toContainEqual(['cp', child.id]);
      const list = await t.store.sessions.list(admin, { ...listAll, profile: 'lin' });
      expect(list.items.filter((item) => item.rootId === 'cp').map((item) => item.id)).toEqual([child.id]);
      expect(list.items.find((item) => item.id === child.id)?.preview).toBe('hello from cp');
      await expect(
        t.store.messages.append(admin, 'cp', { messages: [{ role: 'user', content: 'late' }] }),
      ).rejects.toBeInstanceOf(SessionClosedError);
    });

    it('[lineage.compress] two concurrent compressions of one parent: exactly one child, the loser gets a conflict', async () => {
      await seed('race');
      const presented = await tokensOf(t.store, 'race');
      const results = await Promise.allSettled([
        t.store.lineage.compress(admin, 'race', { summary: 'A', keepLastMessages: 0, childId: 'race-a' }, presented),
        t.store.lineage.compress(admin, 'race', { summary: 'B', keepLastMessages: 0, childId: 'race-b' }, presented),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(loser.reason).toBeInstanceOf(RevisionConflictError);
      const children = await t.store.db
        .selectFrom('sessions')
        .select('id')
        .where('parent_session_id', '=', 'race')
        .execute();
      expect(children).toHaveLength(1);
      const orphanMessages = await t.store.db
        .selectFrom('messages')
        .select('id')
        .where('session_id', 'in', ['race-a', 'race-b'])
        .execute();
      expect(orphanMessages.length).toBe(1);
    });

    it('[turns.lease-fencing] requires both tokens for destructive operations and checks them', async () => {
      await seed('tok');
      await expect(
        t.store.lineage.compress(admin, 'tok', { summary: 's', keepLastMessages: 0 }, { ifMatch: 1 }),
      ).rejects.toBeInstanceOf(PreconditionRequiredError);
      const current = await tokensOf(t.store, 'tok');
      await expect(
        t.store.lineage.branch(admin, 'tok', {}, { ...current, ifMatch: current.ifMatch - 1 }),
      ).rejects.toBeInstanceOf(RevisionConflictError);
      await expect(
        t.store.lineage.reset(admin, 'tok', { reason: 'session_reset' }, { ...current, expectedGeneration: 7 }),
      ).rejects.toBeInstanceOf(StaleGenerationError);
    });

    it('branch copies active messages up to a message and does not take the routing key', async () => {
      const source = await seed('br');
      const messages = await t.store.messages.list(admin, 'br', all);
      const upto = messages.items[2];
      const { child, parent } = await t.store.lineage.branch(
        admin,
        'br',
        { uptoMessageId: upto.id },
        await tokensOf(t.store, 'br'),
      );
      expect(parent.revision).toBe(source.revision);
      expect(child).toMatchObject({
        lineageKind: 'branch',
        parentSessionId: 'br',
        sessionKey: null,
        title: 'Title br (branch)',
        messageCount: 2,
      });
      const copied = await t.store.messages.list(admin, child.id, all);
      expect(copied.items.map((m) => m.content)).toEqual(['scaffold', 'hello from br', 'first answer']);
      const lineage = await t.store.lineage.lineageOf(admin, child.id);
      expect(lineage.chain).toEqual([child.id]);
      const parentLineage = await t.store.lineage.lineageOf(admin, 'br');
      expect(parentLineage.chain).toEqual(['br']);
      expect(parentLineage.edges).toContainEqual({ from: 'br', to: child.id, kind: 'branch' });
    });

    it('[generations.reset-only] [lifecycle.reset-reasons] reset ends with a reset reason, bumps the conversation generation once, and never re-issues it', async () => {
      await seed('rs');
      const generations = new ConversationGenerationRepository();
      const key = 'agent:lin:telegram:dm:rs';
      const { child, parent } = await t.store.lineage.reset(
        admin,
        'rs',
        { reason: 'session_reset' },
        await tokensOf(t.store, 'rs'),
      );
      expect(parent.endReason).toBe('session_reset');
      expect(child).toMatchObject({ lineageKind: 'reset', sessionKey: key, parentSessionId: 'rs' });
      expect(await generations.current(t.store.db, 'telegram', key)).toBe(1);
      // A repeated end does not double-count; a reset of an already-reset session is refused.
      await t.store.sessions.end(admin, 'rs', { reason: 'daily' }, { ifMatch: parent.revision });
      expect(await generations.current(t.store.db, 'telegram', key)).toBe(1);
      await expect(
        t.store.lineage.reset(admin, 'rs', { reason: 'daily' }, await tokensOf(t.store, 'rs')),
      ).rejects.toBeInstanceOf(SessionClosedError);
      const next = await t.store.lineage.reset(admin, child.id, { reason: 'idle' }, await tokensOf(t.store, child.id));
      expect(next.parent.endReason).toBe('idle');
      expect(await generations.current(t.store.db, 'telegram', key)).toBe(2);
      // Removing every session of the peer does not reset the counter (never collected).
      await t.store.db.deleteFrom('messages').where('session_id', 'in', ['rs', child.id, next.child.id]).execute();
      await t.store.db.deleteFrom('sessions').where('id', 'in', [next.child.id, child.id, 'rs']).execute();
      expect(await generations.current(t.store.db, 'telegram', key)).toBe(2);
    });

    it('[lifecycle.first-end-wins] [lifecycle.final-ends] end: first end wins; reopen follows the taxonomy', async () => {
      const s = await seed('life');
      const ended = await t.store.sessions.end(admin, 'life', { reason: 'agent_close' }, { ifMatch: s.revision });
      expect(ended.endReason).toBe('agent_close');
      const again = await t.store.sessions.end(admin, 'life', { reason: 'cli_close' }, { ifMatch: ended.revision });
      expect(again).toMatchObject({ endReason: 'agent_close', revision: ended.revision });
      const reopened = await t.store.sessions.reopen(admin, 'life', {}, { ifMatch: ended.revision });
      expect(reopened).toMatchObject({ endedAt: null, endReason: null });

      const closed = await t.store.sessions.end(admin, 'life', { reason: 'cli_close' }, { ifMatch: reopened.revision });
      await expect(
        t.store.sessions.reopen(admin, 'life', { host: 'discord' }, { ifMatch: closed.revision }),
      ).rejects.toBeInstanceOf(ReopenNotPermittedError);
      const explicit = await t.store.sessions.reopen(admin, 'life', { host: 'telegram' }, { ifMatch: closed.revision });
      expect(explicit.endedAt).toBeNull();

      const compressed = await seed('life2');
      const { parent } = await t.store.lineage.compress(
        admin,
        'life2',
        { summary: 's', keepLastMessages: 0 },
        {
          ifMatch: compressed.revision,
          expectedGeneration: compressed.generation,
        },
      );
      await expect(t.store.sessions.reopen(admin, 'life2', {}, { ifMatch: parent.revision })).rejects.toBeInstanceOf(
        SessionClosedError,
      );
    });

    it('[lineage.compress] [lifecycle.automatic-reasons] compress clears an automatic end stamp but refuses an explicit close', async () => {
      const a = await seed('auto');
      const autoEnded = await t.store.sessions.end(admin, 'auto', { reason: 'ws_disconnect' }, { ifMatch: a.revision });
      const { child } = await t.store.lineage.compress(
        admin,
        'auto',
        { summary: 's', keepLastMessages: 0 },
        {
          ifMatch: autoEnded.revision,
          expectedGeneration: autoEnded.generation,
        },
      );
      expect(child.endedAt).toBeNull();
      const b = await seed('explicit');
      const closed = await t.store.sessions.end(admin, 'explicit', { reason: 'cli_exit' }, { ifMatch: b.revision });
      await expect(
        t.store.lineage.compress(
          admin,
          'explicit',
          { summary: 's', keepLastMessages: 0 },
          {
            ifMatch: closed.revision,
            expectedGeneration: closed.generation,
          },
        ),
      ).rejects.toBeInstanceOf(SessionClosedError);
    });

    it('rewind deactivates from a message on, shrinks counters and leaves search at once', async () => {
      await seed('rw');
      const messages = await t.store.messages.list(admin, 'rw', all);
      const from = messages.items[3];
      const before = await t.store.search.search(admin, { q: 'second question', mode: 'word', limit: 20 });
      expect(before.items.some((hit) => hit.sessionId === 'rw')).toBe(true);
      const { session, rewoundIds } = await t.store.rewinds.rewind(
        admin,
        'rw',
        { toMessageId: from.id },
        await tokensOf(t.store, 'rw'),
      );
      expect(rewoundIds).toEqual([messages.items[3].id, messages.items[4].id]);
      expect(session).toMatchObject({ messageCount: 2, toolCallCount: 1 });
      const after = await t.store.search.search(admin, { q: 'second question', mode: 'word', limit: 20 });
      expect(after.items.some((hit) => hit.sessionId === 'rw')).toBe(false);
      const visible = await t.store.messages.list(admin, 'rw', {
        ...all,
        includeInactive: false,
        includeHidden: false,
      });
      expect(visible.items.map((m) => m.content)).toEqual(['hello from rw', 'first answer']);
    });

    it('[session.revision-generation] [turns.lease-fencing] turns: begin bumps the generation, a stale worker is fenced, a live lease makes the session busy until it expires', async () => {
      const s = await seed('turn');
      const first = await t.store.turns.begin(admin, 'turn', { holder: 'worker-a', ttlSeconds: 30 });
      expect(first.generation).toBe(s.generation + 1);
      expect((await t.store.sessions.get(admin, 'turn')).turn).toMatchObject({
        holder: 'worker-a',
        turnId: first.turnId,
      });
      await expect(t.store.turns.begin(admin, 'turn', { holder: 'worker-b', ttlSeconds: 30 })).rejects.toBeInstanceOf(
        SessionBusyError,
      );
      await expect(
        t.store.lineage.compress(admin, 'turn', { summary: 's', keepLastMessages: 0 }, await tokensOf(t.store, 'turn')),
      ).rejects.toBeInstanceOf(SessionBusyError);
      // The lease holder itself may act on its busy session by naming its turn.
      const own = await tokensOf(t.store, 'turn');
      const rewound = await t.store.messages.list(admin, 'turn', all);
      await t.store.rewinds.rewind(
        admin,
        'turn',
        { toMessageId: rewound.items[4].id },
        { ...own, turnId: first.turnId },
      );

      clock.advance(31_000);
      const second = await t.store.turns.begin(admin, 'turn', { holder: 'worker-b', ttlSeconds: 30 });
      expect(second.generation).toBe(first.generation + 1);
      await expect(
        t.store.messages.append(
          admin,
          'turn',
          { messages: [{ role: 'assistant', content: 'stale' }] },
          { expectedGeneration: first.generation },
        ),
      ).rejects.toBeInstanceOf(StaleGenerationError);
      await t.store.messages.append(
        admin,
        'turn',
        { messages: [{ role: 'assistant', content: 'fresh' }] },
        {
          expectedGeneration: second.generation,
        },
      );
      await expect(t.store.turns.renew(admin, 'turn', first.turnId, { ttlSeconds: 30 })).rejects.toBeInstanceOf(
        StaleGenerationError,
      );
      const renewed = await t.store.turns.renew(admin, 'turn', second.turnId, { ttlSeconds: 60 });
      expect(renewed.generation).toBe(second.generation);
      await t.store.turns.complete(admin, 'turn', second.turnId);
      expect((await t.store.sessions.get(admin, 'turn')).turn).toBeNull();
      const free = await t.store.lineage.compress(
        admin,
        'turn',
        { summary: 's', keepLastMessages: 0 },
        await tokensOf(t.store, 'turn'),
      );
      expect(free.child.generation).toBe(second.generation);

      clock.advance(120_000);
      await seed('turn-expired');
      await t.store.turns.begin(admin, 'turn-expired', { holder: 'w', ttlSeconds: 5 });
      clock.advance(6_000);
      const expired = await t.store.lineage.reset(
        admin,
        'turn-expired',
        { reason: 'idle' },
        await tokensOf(t.store, 'turn-expired'),
      );
      expect(expired.child.lineageKind).toBe('reset');
    });

    it('[session.lineage-typed] [lineage.kinds] lineage returns chain root → tip and the tree with all four edge kinds', async () => {
      await seed('tree');
      const c1 = await t.store.lineage.compress(
        admin,
        'tree',
        { summary: 's1', keepLastMessages: 0, childId: 'tree-c1' },
        await tokensOf(t.store, 'tree'),
      );
      const c2 = await t.store.lineage.compress(
        admin,
        c1.child.id,
        { summary: 's2', keepLastMessages: 0, childId: 'tree-c2' },
        await tokensOf(t.store, c1.child.id),
      );
      await t.store.lineage.branch(admin, 'tree-c1', { childId: 'tree-branch' }, await tokensOf(t.store, 'tree-c1'));
      await aSession(t.store, {
        id: 'tree-helper',
        profile: 'lin',
        source: 'subagent',
        parentSessionId: 'tree-c2',
        lineageKind: 'delegate',
      });
      const lineage = await t.store.lineage.lineageOf(admin, 'tree-c1');
      expect(lineage).toMatchObject({
        rootId: 'tree',
        tipId: c2.child.id,
        chain: ['tree', 'tree-c1', 'tree-c2'],
        treeRootId: 'tree',
        truncated: false,
      });
      expect(lineage.nodes.map((node) => node.id).sort()).toEqual([
        'tree',
        'tree-branch',
        'tree-c1',
        'tree-c2',
        'tree-helper',
      ]);
      expect(lineage.edges).toEqual(
        expect.arrayContaining([
          { from: 'tree', to: 'tree-c1', kind: 'compression' },
          { from: 'tree-c1', to: 'tree-c2', kind: 'compression' },
          { from: 'tree-c1', to: 'tree-branch', kind: 'branch' },
          { from: 'tree-c2', to: 'tree-helper', kind: 'delegate' },
        ]),
      );
      const fromBranch = await t.store.lineage.lineageOf(admin, 'tree-branch');
      expect(fromBranch.chain).toEqual(['tree-branch']);
      expect(fromBranch.treeRootId).toBe('tree');
    });

    it('[lineage.chain-tip] says when a chain is deeper than the walk bound instead of reporting a false root or tip', async () => {
      let parent = 'deep-0000';
      await aSession(t.store, { id: parent, profile: 'deep' });
      for (let i = 1; i <= 1002; i++) {
        const id = `deep-${String(i).padStart(4, '0')}`;
        await aSession(t.store, {
          id,
          profile: 'deep',
          parentSessionId: parent,
          lineageKind: 'compression',
        });
        parent = id;
      }
      const fromRoot = await t.store.lineage.lineageOf(admin, 'deep-0000');
      expect(fromRoot.truncated).toBe(true);
      const shallow = await t.store.lineage.lineageOf(admin, 'tree');
      expect(shallow.truncated).toBe(false);
      // 1,003 sequential creates: ~1 s alone, past the 5 s default on PostgreSQL when the shared
      // 2-core machine is busy. What this pins is the truncation flag, not speed (that is bench/).
    }, 30_000);
  });
}
