import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { LineageRepository, MAX_WALK } from '../repositories/lineage.repository.js';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, aSession, contextOf, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
type Kind = 'compression' | 'branch' | 'reset' | 'delegate';
type End = null | 'compression' | 'agent_close' | 'cli_close';
interface NodeSpec {
  parent: number | null;
  kind: Kind;
  end: End;
}
interface ModelNode {
  id: string;
  parent: string | null;
  kind: Kind | null;
  end: End;
  order: number;
}

/** A simple reference model of docs/domain.md §3, written independently of the SQL. */
class Model {
  constructor(readonly nodes: Map<string, ModelNode>) {}
  compressionChildren(id: string) {
    return [...this.nodes.values()].filter((n) => n.parent === id && n.kind === 'compression');
  }
  preferredChild(id: string): ModelNode | undefined {
    return this.compressionChildren(id).sort(
      (a, b) =>
        Number(b.end === 'compression') - Number(a.end === 'compression') ||
        Number(b.end === null) - Number(a.end === null) ||
        b.order - a.order ||
        (b.id > a.id ? 1 : -1),
    )[0];
  }
  tip(id: string): string {
    let current = id;
    for (let i = 0; i < MAX_WALK; i++) {
      const next = this.preferredChild(current);
      if (!next) return current;
      current = next.id;
    }
    return current;
  }
  chainRoot(id: string): string {
    let current = this.nodes.get(id)!;
    while (current.kind === 'compression' && current.parent !== null) current = this.nodes.get(current.parent)!;
    return current.id;
  }
  chainThrough(id: string): string[] {
    const back: string[] = [id];
    let current = this.nodes.get(id)!;
    while (current.kind === 'compression' && current.parent !== null) {
      current = this.nodes.get(current.parent)!;
      back.unshift(current.id);
    }
    const forward: string[] = [];
    let next = this.preferredChild(id);
    while (next) {
      forward.push(next.id);
      next = this.preferredChild(next.id);
    }
    return [...back, ...forward];
  }
  delegated(id: string): boolean {
    const node = this.nodes.get(id)!;
    if (node.kind === 'delegate') return true;
    if (node.kind === 'compression' && node.parent !== null) return this.delegated(node.parent);
    return false;
  }
  listed(): string[] {
    return [...this.nodes.values()]
      .filter((n) => this.compressionChildren(n.id).length === 0 && !this.delegated(n.id))
      .map((n) => n.id)
      .sort();
  }
}

const graphArbitrary = fc
  .array(
    fc.record({
      parentPick: fc.option(fc.nat(), { nil: null, freq: 3 }),
      kind: fc.constantFrom<Kind>('compression', 'compression', 'branch', 'reset', 'delegate'),
      end: fc.constantFrom<End>(null, null, 'compression', 'agent_close', 'cli_close'),
    }),
    { minLength: 1, maxLength: 18 },
  )
  .map((raw) =>
    raw.map(
      (spec, index): NodeSpec => ({
        parent: index === 0 || spec.parentPick === null ? null : spec.parentPick % index,
        kind: spec.kind,
        end: spec.end,
      }),
    ),
  );

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`lineage walks against a reference model on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 7, 1));
    const t = useTestStore(dialect, { clock });
    let run = 0;

    it('[lineage.chain-tip] [lineage.own-lineage] [lineage.listing] tip, chain, lineage and listing agree with the model; branch/reset children never join a chain', async () => {
      await fc.assert(
        fc.asyncProperty(graphArbitrary, async (specs) => {
          run++;
          const profile = `prop${run}`;
          const nodes = new Map<string, ModelNode>();
          for (const [index, spec] of specs.entries()) {
            const id = `${profile}-n${index}`;
            const parent = spec.parent === null ? null : `${profile}-n${spec.parent}`;
            clock.advance(1000);
            await aSession(t.store, {
              id,
              profile,
              ...(parent ? { parentSessionId: parent, lineageKind: spec.kind } : {}),
            });
            if (spec.end) await t.store.sessions.stampEndForSeed(id, clock.now(), spec.end);
            nodes.set(id, { id, parent, kind: parent ? spec.kind : null, end: spec.end, order: index });
          }
          const model = new Model(nodes);
          const repository = new LineageRepository();
          const ids = [...nodes.keys()];
          const tips = await repository.tipsOf(t.store.db, ids);
          const roots = await repository.chainRootsOf(t.store.db, ids);
          for (const id of ids) {
            expect(tips.get(id), `tip of ${id}`).toBe(model.tip(id));
            expect(roots.get(id)?.id, `root of ${id}`).toBe(model.chainRoot(id));
            const lineage = await t.store.lineage.lineageOf(admin, id);
            expect(lineage.chain, `chain through ${id}`).toEqual(model.chainThrough(id));
            for (const member of lineage.chain.slice(1)) expect(nodes.get(member)?.kind).toBe('compression');
            for (const child of [...nodes.values()].filter((n) => n.parent === id && n.kind !== 'compression')) {
              expect(lineage.chain).not.toContain(child.id);
            }
          }
          const listed = await t.store.sessions.list(admin, {
            profile,
            status: 'all',
            archived: 'include',
            includeChildren: false,
            limit: 200,
            order: 'recent',
          });
          const listedIds = listed.items.map((item) => item.id);
          expect(new Set(listedIds).size).toBe(listedIds.length);
          expect([...listedIds].sort()).toEqual(model.listed());
          for (const item of listed.items) expect(item.rootId).toBe(model.chainRoot(item.id));
        }),
        { numRuns: dialect === 'sqlite' ? 150 : 40 },
      );
      // Hundreds of transactions: a few seconds on a loaded 2-core machine.
    }, 60_000);

    it('[lineage.chain-tip] every walk terminates on a corrupted graph with a cycle', async () => {
      for (const id of ['cyc-a', 'cyc-b', 'cyc-c']) await aSession(t.store, { id, profile: 'cyc' });
      await sql`update sessions set parent_session_id = 'cyc-c', lineage_kind = 'compression' where id = 'cyc-a'`.execute(
        t.store.db,
      );
      await sql`update sessions set parent_session_id = 'cyc-a', lineage_kind = 'compression' where id = 'cyc-b'`.execute(
        t.store.db,
      );
      await sql`update sessions set parent_session_id = 'cyc-b', lineage_kind = 'compression' where id = 'cyc-c'`.execute(
        t.store.db,
      );
      const repository = new LineageRepository();
      const tips = await repository.tipsOf(t.store.db, ['cyc-a']);
      expect(['cyc-a', 'cyc-b', 'cyc-c']).toContain(tips.get('cyc-a'));
      const lineage = await t.store.lineage.lineageOf(admin, 'cyc-b');
      expect(new Set(lineage.chain).size).toBe(lineage.chain.length);
      expect(lineage.nodes.length).toBeLessThanOrEqual(3);
      const listed = await t.store.sessions.list(admin, {
        profile: 'cyc',
        status: 'all',
        archived: 'include',
        includeChildren: false,
        limit: 50,
        order: 'recent',
      });
      expect(listed.items).toEqual([]);
    });

    it('chain usage is summed in the database; a cycle or a missing parent is walked row by row, each segment once', async () => {
      const repository = new LineageRepository();
      // The cycle above: no root, so the row-by-row walk decides; each of the three segments counts once.
      const cyclic = (await repository.chainUsageOf(t.store.db, ['cyc-a'])).get('cyc-a')!;
      expect(['cyc-a', 'cyc-b', 'cyc-c']).toContain(cyclic.rootId);
      expect(cyclic.segments).toBe(3);
      // A chain of three with counters, and a continuation whose parent row is gone.
      for (const [id, parent] of [
        ['sum-root', null],
        ['sum-mid', 'sum-root'],
        ['sum-tip', 'sum-mid'],
        ['sum-orphan', null],
      ] as const) {
        await aSession(t.store, { id, profile: 'cyc' });
        await sql`update sessions set parent_session_id = ${parent}, lineage_kind = ${parent ? 'compression' : null},
          input_tokens = 100, output_tokens = 10, message_count = 2, estimated_cost_usd = 0.25 where id = ${id}`.execute(
          t.store.db,
        );
      }
      await sql`update sessions set parent_session_id = 'sum-gone', lineage_kind = 'compression' where id = 'sum-orphan'`.execute(
        t.store.db,
      );
      const usage = await repository.chainUsageOf(t.store.db, ['sum-tip', 'sum-mid', 'sum-orphan', 'sum-root']);
      const root = await sql<{ started_at: number }>`select started_at from sessions where id = 'sum-root'`.execute(
        t.store.db,
      );
      expect(usage.get('sum-tip')).toEqual({
        rootId: 'sum-root',
        rootStartedAt: Number(root.rows[0].started_at),
        segments: 3,
        messageCount: 6,
        inputTokens: 300,
        outputTokens: 30,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        estimatedCostUsd: 0.75,
      });
      expect(usage.get('sum-mid')).toMatchObject({ rootId: 'sum-root', segments: 2, inputTokens: 200 });
      expect(usage.get('sum-root')).toMatchObject({ rootId: 'sum-root', segments: 1, inputTokens: 100 });
      expect(usage.get('sum-orphan')).toMatchObject({ rootId: 'sum-orphan', segments: 1, inputTokens: 100 });
    });
  });
}
