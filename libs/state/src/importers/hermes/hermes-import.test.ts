import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportReport } from '@statehouse/contracts';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PURGE_LATER_ABOVE_MESSAGES } from '../../services/deletion.engine.js';
import {
  adminPrincipal,
  buildHermesScenario,
  contextOf,
  dumpImportedState,
  EVERY_MESSAGE,
  HermesFixture,
  type HermesVersion,
  openTestStore,
  SCENARIO_CLI_KEY,
  SCENARIO_EDGES,
  SCENARIO_KEY,
  SCENARIO_SESSIONS,
  SCENARIO_T0,
  scanForIds,
  TEST_DIALECTS,
  type TestStore,
} from '../../testing/index.js';

const admin = contextOf(adminPrincipal);
const t0 = SCENARIO_T0;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function scenarioFile(version: HermesVersion): { path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-fixture-'));
  const path = join(dir, 'state.db');
  buildHermesScenario(path, version).close();
  return { path, dir };
}

async function importFile(
  t: TestStore,
  path: string,
  options: { dryRun?: boolean; onConflict?: 'skip' | 'replace'; profile?: string } = {},
): Promise<ImportReport> {
  const result = await t.store.imports.runHermes(admin, {
    path,
    profile: options.profile ?? 'gamma',
    onConflict: options.onConflict ?? 'skip',
    dryRun: options.dryRun ?? false,
  });
  return result.report;
}

const listAll = (t: TestStore, includeChildren = false) =>
  t.store.sessions.list(admin, {
    status: 'all',
    archived: 'include',
    includeChildren,
    includeHidden: true,
    limit: 200,
    order: 'started',
  });

const searchIds = async (
  t: TestStore,
  q: string,
  mode: 'auto' | 'word' | 'substring' = 'auto',
  scope: { role?: 'tool'; excludeSource?: string[] } = {},
) => (await t.store.search.search(admin, { q, mode, limit: 50, ...scope })).items.map((hit) => hit.sessionId).sort();

for (const { dialect, available } of TEST_DIALECTS) {
  for (const version of [21, 30] as const) {
    describe.skipIf(!available)(`Hermes v${version} import on ${dialect}`, { timeout: 60_000 }, () => {
      let t: TestStore;
      let file: { path: string; dir: string };
      let report: ImportReport;

      beforeAll(async () => {
        file = scenarioFile(version);
        t = await openTestStore(dialect);
        report = await importFile(t, file.path);
      }, 60_000);
      afterAll(async () => {
        await t?.close();
        rmSync(file.dir, { recursive: true, force: true });
      }, 60_000);

      it('reports what it created, by lineage kind, with routes and warnings', () => {
        expect(report.sessions).toEqual({ created: 18, updated: 0, skipped: 0, conflicts: 0 });
        expect(report.messages).toEqual({ created: 20, skipped: 0 });
        expect(report.lineage).toEqual({ compression: 3, branch: 2, reset: 2, delegate: 2 });
        expect(report.routes).toBe(2);
        expect(report.warnings).toContain(
          'session unk-child: the kind of its edge to unk-parent is unknown (parent ended cli_close, source cli); edge kept without a kind',
        );
        expect(report.warnings).toContain(
          `route ${SCENARIO_CLI_KEY}: pointed at cmp-root, moved to its compression tip cmp-tip`,
        );
      });

      it('classifies every edge by the precedence of the rules (markers, inherited markers, parentless resets)', async () => {
        const rows = await t.store.db
          .selectFrom('sessions')
          .select(['id', 'parent_session_id', 'lineage_kind', 'delegated'])
          .execute();
        expect(rows.map((row) => row.id).sort()).toEqual([...SCENARIO_SESSIONS].sort());
        for (const row of rows) {
          const edge = SCENARIO_EDGES[row.id];
          expect([row.id, row.parent_session_id, row.lineage_kind]).toEqual([
            row.id,
            edge?.[0] ?? null,
            edge?.[1] ?? null,
          ]);
        }
        const delegated = rows.filter((row) => Number(row.delegated) === 1).map((row) => row.id);
        expect(delegated.sort()).toEqual(['dl-child', 'dl-marker']);
      });

      it('maps every session field', async () => {
        const tip = await t.store.sessions.get(admin, 'cmp-tip');
        expect(tip).toMatchObject({
          profile: 'alpha',
          source: 'cli',
          createdSource: 'cli',
          model: 'claude-x',
          title: 'Deploy plan #3',
          titleSource: 'llm',
          parentSessionId: 'cmp-mid',
          lineageKind: 'compression',
          startedAt: iso(t0 + 200),
          endedAt: null,
          endReason: null,
          messageCount: version === 30 ? 3 : 5,
          toolCallCount: 0,
          inputTokens: 1300,
          outputTokens: 250,
          cacheReadTokens: 40,
          cacheWriteTokens: 10,
          reasoningTokens: 5,
          estimatedCostUsd: 0.42,
          archived: false,
          hidden: false,
          pinned: version === 30,
          transportProfile: version === 30 ? 'tui-main' : null,
          lastActivityAt: iso(version === 30 ? t0 + 260 : t0 + 205),
          revision: 1,
          generation: 0,
        });
        expect(tip.origin).toEqual(
          version === 30
            ? {
                profile: 'alpha',
                platform: 'cli',
                workspace: { cwd: '/srv/billing', gitBranch: 'main', gitRepoRoot: '/srv/billing' },
              }
            : { profile: 'alpha', platform: 'cli' },
        );
        const root = await t.store.sessions.get(admin, 'cmp-root');
        expect(root).toMatchObject({
          title: 'Deploy plan',
          titleSource: version === 30 ? 'user' : 'llm',
          modelConfig: { temperature: 0.3 },
          endedAt: iso(t0 + 100),
          endReason: 'compression',
          messageCount: 4,
          toolCallCount: 1,
        });
        const chat = await t.store.sessions.get(admin, 'rst-c');
        expect(chat).toMatchObject({
          source: 'telegram',
          sessionKey: SCENARIO_KEY,
          userId: 'u42',
          chatId: '42',
          chatType: 'dm',
          displayName: 'Ada',
          handoffState: version === 30 ? 'completed' : null,
          handoffPlatform: version === 30 ? 'discord' : null,
          parentSessionId: 'rst-b',
          lineageKind: 'reset',
          conversationGeneration: 2,
        });
        expect((await t.store.sessions.get(admin, 'beta-origin')).profile).toBe('beta');
        expect((await t.store.sessions.get(admin, 'no-profile')).profile).toBe('gamma');
        expect((await t.store.sessions.get(admin, 'mk-child')).modelConfig).toEqual({
          temperature: 0.2,
          _branched_from: 'mk-parent',
        });
      });

      it('maps every message field, in Hermes order, with structured content and visibility', async () => {
        const root = await t.store.messages.list(admin, 'cmp-root', { limit: 100, ...EVERY_MESSAGE });
        expect(root.items.map((m) => [m.role, m.content, m.timestamp])).toEqual([
          ['user', 'How do we deploy the billing service?', iso(t0 + 1)],
          ['assistant', null, iso(t0 + 2)],
          ['tool', 'files: deployment manifest and readme', iso(t0 + 3)],
          ['assistant', 'Use the blue-green rollout.', iso(t0 + 4)],
        ]);
        expect(root.items[1]).toMatchObject({
          toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"cmd":"ls"}' } }],
          finishReason: 'tool_calls',
        });
        expect(root.items[2]).toMatchObject({ toolCallId: 'call_1', toolName: 'shell' });
        expect(root.items[3]).toMatchObject({
          tokenCount: 12,
          reasoning: 'thinking about rollout',
          finishReason: 'stop',
        });

        const tip = await t.store.messages.list(admin, 'cmp-tip', { limit: 100, ...EVERY_MESSAGE });
        expect(tip.items[0]).toMatchObject({
          role: 'user',
          content: [
            { type: 'text', text: 'Check the 東京 rollout status' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
          platformMessageId: 'pm-1',
          active: true,
          compacted: false,
        });
        expect(tip.items[1]).toMatchObject({ platformMessageId: 'pm-2', tokenCount: 9 });
        const visibility = tip.items.map((m) => [m.content, m.active, m.compacted, m.displayKind]);
        expect(visibility.slice(2)).toEqual(
          version === 30
            ? [
                ['compacted but searchable giraffe', false, true, 'visible'],
                ['please ignore this rewound zebra', false, false, 'visible'],
                ['model scaffolding', true, false, 'hidden'],
              ]
            : [
                ['compacted but searchable giraffe', true, false, 'visible'],
                ['please ignore this rewound zebra', true, false, 'visible'],
                ['model scaffolding', true, false, 'visible'],
              ],
        );
        // What a reader sees by default: no rewound or hidden rows.
        const shown = await t.store.messages.list(admin, 'cmp-tip', {
          limit: 100,
          includeCompacted: true,
          includeHidden: false,
          includeInactive: false,
          order: 'oldest',
        });
        expect(shown.items).toHaveLength(version === 30 ? 3 : 5);
      });

      it('counts by role, source, end reason and lineage kind match the file', async () => {
        const group = async (table: 'sessions' | 'messages', column: string) => {
          const { rows } = await sql<{
            k: string | null;
            n: number;
          }>`select ${sql.ref(column)} as k, count(*) as n from ${sql.table(table)} group by ${sql.ref(column)}`.execute(
            t.store.db,
          );
          return Object.fromEntries(rows.map((row) => [String(row.k), Number(row.n)]));
        };
        expect(await group('messages', 'role')).toEqual({ user: 13, assistant: 5, tool: 1, system: 1 });
        expect(await group('sessions', 'source')).toEqual({
          cli: 12,
          telegram: 3,
          subagent: 1,
          cron: 1,
          api_server: 1,
        });
        expect(await group('sessions', 'end_reason')).toEqual({
          compression: 3,
          session_reset: 1,
          idle: 1,
          branched: 1,
          cli_close: 2,
          cron_complete: 1,
          null: 9,
        });
        expect(await group('sessions', 'lineage_kind')).toEqual({
          compression: 3,
          branch: 2,
          reset: 2,
          delegate: 2,
          null: 9,
        });
      });

      it('keeps a compression chain one conversation in the list, at its tip, with its opening as preview', async () => {
        const list = await listAll(t);
        const ids = list.items.map((item) => item.id);
        expect(ids).not.toContain('cmp-root');
        expect(ids).not.toContain('cmp-mid');
        expect(ids).not.toContain('mk-child');
        expect(ids).not.toContain('dl-child');
        expect(ids).not.toContain('dl-marker');
        const tip = list.items.find((item) => item.id === 'cmp-tip')!;
        expect(tip).toMatchObject({
          rootId: 'cmp-root',
          conversationStartedAt: iso(t0),
          preview: 'How do we deploy the billing service?',
        });
        expect(ids.sort()).toEqual(
          ['cmp-tip', 'rst-a', 'rst-b', 'rst-c', 'br-parent', 'br-child', 'mk-parent', 'mk-grandchild', 'dl-parent']
            .concat(['unk-parent', 'unk-child', 'beta-origin', 'no-profile'])
            .sort(),
        );
        expect((await listAll(t, true)).items.map((item) => item.id)).toEqual(expect.arrayContaining(['dl-child']));
        const lineage = await t.store.lineage.lineageOf(admin, 'cmp-mid');
        expect(lineage.chain).toEqual(['cmp-root', 'cmp-mid', 'cmp-tip']);
        expect(lineage.tipId).toBe('cmp-tip');
      });

      it('fills both search indexes from the imported text (words and CJK), never rewound or hidden rows', async () => {
        expect(await searchIds(t, 'giraffe', 'word')).toEqual(['cmp-tip']);
        expect(await searchIds(t, 'zebra', 'word')).toEqual(version === 30 ? [] : ['cmp-tip']);
        expect(await searchIds(t, 'scaffolding', 'word')).toEqual(version === 30 ? [] : ['cmp-tip']);
        expect(await searchIds(t, '東京', 'substring')).toEqual(['cmp-tip', 'cmp-tip']);
        expect(await searchIds(t, 'リージョン', 'auto')).toEqual(['cmp-tip']);
        expect(await searchIds(t, 'rollout', 'word')).toEqual(['cmp-mid', 'cmp-root', 'cmp-tip', 'cmp-tip']);
        // Tool output and sub-agent text are outside the default scope of both indexes (never
        // substring-indexed), and found when asked for (docs/search.md, Scope).
        expect(await searchIds(t, 'manifest', 'word')).toEqual([]);
        expect(await searchIds(t, 'manifest', 'substring')).toEqual([]);
        expect(await searchIds(t, 'manifest', 'word', { role: 'tool' })).toEqual(['cmp-root']);
        expect(await searchIds(t, 'manifest', 'substring', { role: 'tool' })).toEqual(['cmp-root']);
        expect(await searchIds(t, 'helper task', 'word')).toEqual([]);
        expect(await searchIds(t, 'helper task', 'substring')).toEqual([]);
        expect(await searchIds(t, 'helper task', 'word', { excludeSource: [] })).toEqual(['dl-child']);
        expect(await searchIds(t, 'helper task', 'substring', { excludeSource: [] })).toEqual(['dl-child']);
        const hits = (await t.store.search.search(admin, { q: 'blue-green', mode: 'word', limit: 5 })).items;
        expect(hits.map((hit) => [hit.sessionId, hit.tipSessionId]).sort()).toEqual([
          ['cmp-mid', 'cmp-tip'],
          ['cmp-root', 'cmp-tip'],
        ]);
      });

      it('imports per-model usage, routes at their tips and generations never lowered', async () => {
        const usage = await t.store.db
          .selectFrom('session_model_usage')
          .selectAll()
          .where('session_id', '=', 'cmp-tip')
          .orderBy('model')
          .execute();
        expect(
          usage.map((u) => [
            u.model,
            u.task,
            Number(u.input_tokens),
            Number(u.output_tokens),
            Number(u.api_call_count),
          ]),
        ).toEqual(
          version === 30
            ? [
                ['claude-haiku', 'compression', 300, 50, 2],
                ['claude-x', '', 1000, 200, 5],
              ]
            : [['claude-x', '', 1300, 250, 0]],
        );
        expect(usage.every((u) => u.billing_provider === 'anthropic')).toBe(true);
        const routes = await t.store.routes.list(admin, { limit: 50 });
        expect(routes.items.map((r) => [r.profile, r.sessionKey, r.sessionId])).toEqual([
          ['alpha', SCENARIO_CLI_KEY, 'cmp-tip'],
          ['alpha', SCENARIO_KEY, 'rst-c'],
        ]);
        const generation = await t.store.db
          .selectFrom('conversation_generations')
          .select('generation')
          .where('source', '=', 'telegram')
          .where('session_key', '=', SCENARIO_KEY)
          .executeTakeFirst();
        expect(Number(generation?.generation)).toBe(version === 30 ? 3 : 2);
      });

      it('re-importing the same file creates nothing and changes nothing', async () => {
        const before = await dumpImportedState(t.store);
        const again = await importFile(t, file.path);
        expect(again.sessions).toEqual({ created: 0, updated: 0, skipped: 18, conflicts: 0 });
        expect(again.messages).toEqual({ created: 0, skipped: 20 });
        expect(again.lineage).toEqual({ compression: 0, branch: 0, reset: 0, delegate: 0 });
        expect(again.routes).toBe(0);
        expect(await dumpImportedState(t.store)).toEqual(before);
      });
    });
  }

  describe.skipIf(!available)(`Hermes import runs on ${dialect}`, { timeout: 60_000 }, () => {
    const files: string[] = [];
    const stores: TestStore[] = [];
    const fresh = async () => {
      const t = await openTestStore(dialect);
      stores.push(t);
      return t;
    };
    const file = (version: HermesVersion = 30) => {
      const made = scenarioFile(version);
      files.push(made.dir);
      return made.path;
    };
    // Each test's store goes as soon as the test ends (a scratch PostgreSQL database each).
    afterEach(async () => {
      for (const t of stores.splice(0)) await t.close();
    }, 60_000);
    afterAll(() => {
      for (const dir of files) rmSync(dir, { recursive: true, force: true });
    });

    it('a dry run reports exactly what the real run does and writes nothing', async () => {
      const t = await fresh();
      const path = file();
      const before = await dumpImportedState(t.store);
      const rehearsed = await importFile(t, path, { dryRun: true });
      expect(await dumpImportedState(t.store)).toEqual(before);
      expect((await t.store.db.selectFrom('import_jobs').select('id').execute()).length).toBe(0);
      const real = await importFile(t, path);
      expect(rehearsed).toEqual(real);
    });

    it('a dry run agrees with the real run across units of work (a title taken by an earlier unit)', async () => {
      const t = await fresh();
      const dir = mkdtempSync(join(tmpdir(), 'hermes-fixture-'));
      files.push(dir);
      const path = join(dir, 'state.db');
      const f = new HermesFixture(path, 30);
      f.transaction(() => {
        for (const id of ['first', 'second']) {
          f.session({ id, source: 'cli', profile_name: 'alpha', title: 'Same title', started_at: t0 });
          for (let i = 0; i < 400; i++) f.message(id, { role: 'user', content: `${id} ${i}`, timestamp: t0 + i });
        }
      });
      f.close();
      const rehearsed = await importFile(t, path, { dryRun: true });
      const real = await importFile(t, path);
      expect(real.warnings).toContain('session second: title "Same title" is taken here; stored as "Same title (2)"');
      expect(rehearsed).toEqual(real);
      expect((await t.store.sessions.get(admin, 'second')).title).toBe('Same title (2)');
    });

    it('a newer copy adds exactly the new rows and moves what moved (three-way: changes made here stay)', async () => {
      const t = await fresh();
      const path = file(30);
      await importFile(t, path);
      const user = await t.store.sessions.get(admin, 'rst-c');
      await t.store.sessions.update(
        admin,
        'rst-c',
        { title: 'My chat', titleSource: 'user' },
        { ifMatch: user.revision },
      );
      const branch = await t.store.sessions.get(admin, 'br-child');
      await t.store.sessions.update(admin, 'br-child', { archived: true }, { ifMatch: branch.revision });

      const f = HermesFixture.open(path, 30);
      f.transaction(() => {
        f.message('cmp-tip', { role: 'user', content: 'what about the pelican cluster?', timestamp: t0 + 270 });
        f.message('cmp-tip', { role: 'assistant', content: 'pelican is next', timestamp: t0 + 271 });
        f.update('sessions', 'cmp-tip', { input_tokens: 1500, last_activity_at: t0 + 271 });
        const rolled = f.db.prepare(`select id from messages where content like 'Rollout is green%'`).get() as {
          id: number;
        };
        f.update('messages', rolled.id, { active: 0, compacted: 0 });
        f.update('sessions', 'rst-c', {
          ended_at: t0 + 600,
          end_reason: 'idle',
          title: 'auto title',
          title_source: 'llm',
        });
        f.update('sessions', 'dl-parent', { title: 'Helper run', title_source: 'llm' });
        f.session({ id: 'new-one', source: 'cli', profile_name: 'alpha', started_at: t0 + 2000 });
        for (let i = 0; i < 3; i++)
          f.message('new-one', { role: 'user', content: `new message ${i}`, timestamp: t0 + 2001 + i });
        f.db.prepare('update conversation_generations set generation = 4').run();
      });
      f.close();

      const newer = await importFile(t, path);
      expect(newer.sessions).toEqual({ created: 1, updated: 3, skipped: 15, conflicts: 0 });
      expect(newer.messages).toEqual({ created: 5, skipped: 20 });

      const tip = await t.store.sessions.get(admin, 'cmp-tip');
      // One change, one revision.
      expect(tip).toMatchObject({ messageCount: 4, inputTokens: 1500, lastActivityAt: iso(t0 + 271), revision: 2 });
      expect(await searchIds(t, 'pelican', 'word')).toEqual(['cmp-tip', 'cmp-tip']);
      expect(await searchIds(t, 'リージョン', 'substring')).toEqual([]);
      const chat = await t.store.sessions.get(admin, 'rst-c');
      expect(chat).toMatchObject({ endedAt: iso(t0 + 600), endReason: 'idle', title: 'My chat', titleSource: 'user' });
      expect((await t.store.sessions.get(admin, 'dl-parent')).title).toBe('Helper run');
      expect((await t.store.sessions.get(admin, 'br-child')).archived).toBe(true);
      expect((await t.store.sessions.get(admin, 'new-one')).messageCount).toBe(3);
      const generation = await t.store.db
        .selectFrom('conversation_generations')
        .select('generation')
        .executeTakeFirst();
      expect(Number(generation?.generation)).toBe(4);

      const third = await importFile(t, path);
      expect(third.sessions).toEqual({ created: 0, updated: 0, skipped: 19, conflicts: 0 });
      expect(third.messages).toEqual({ created: 0, skipped: 25 });
    });

    it('[sweep.imported-unclaimed-kept] catching up: the sweep leaves imported open sessions as Hermes left them, and the end the source wrote since arrives', async () => {
      // The documented way to import while Hermes keeps running: import a copy, later the newer
      // copy. Meanwhile the API's sweep runs; it once ended every imported open session idle for a
      // day. Their liveness is Hermes' until a gateway here claims them.
      const t = await fresh();
      const path = file(30);
      await importFile(t, path);
      const sweep = await t.store.gateways.sweep('audit-sweep');
      expect(sweep.reapedIds).toEqual([]);
      for (const id of ['cmp-tip', 'rst-c']) {
        expect(await t.store.sessions.get(admin, id)).toMatchObject({ endedAt: null, awaitingClaim: true });
      }

      const f = HermesFixture.open(path, 30);
      f.transaction(() => {
        f.update('sessions', 'cmp-tip', { ended_at: t0 + 300, end_reason: 'compression' });
        f.session({
          id: 'cmp-next',
          source: 'cli',
          parent_session_id: 'cmp-tip',
          profile_name: 'alpha',
          started_at: t0 + 300,
        });
        f.message('cmp-next', { role: 'user', content: 'carrying on after compression', timestamp: t0 + 301 });
        // Still open in the source: still Hermes', open.
        f.message('rst-c', { role: 'user', content: 'one more on telegram', timestamp: t0 + 510 });
      });
      f.close();

      const newer = await importFile(t, path);
      expect(newer.sessions).toMatchObject({ created: 1, conflicts: 0 });
      expect(await t.store.sessions.get(admin, 'cmp-tip')).toMatchObject({
        endedAt: iso(t0 + 300),
        endReason: 'compression',
      });
      expect(await t.store.sessions.get(admin, 'cmp-next')).toMatchObject({
        parentSessionId: 'cmp-tip',
        lineageKind: 'compression',
      });
      expect((await t.store.lineage.lineageOf(admin, 'cmp-next')).chain).toEqual([
        'cmp-root',
        'cmp-mid',
        'cmp-tip',
        'cmp-next',
      ]);
      expect(await t.store.sessions.get(admin, 'rst-c')).toMatchObject({
        endedAt: null,
        awaitingClaim: true,
        messageCount: 2,
      });
      expect((await t.store.gateways.sweep('audit-sweep')).reapedIds).toEqual([]);
    });

    it('carries the archived (or auto-archived), pinned and hidden flags across', async () => {
      const t = await fresh();
      const dir = mkdtempSync(join(tmpdir(), 'hermes-fixture-'));
      files.push(dir);
      const path = join(dir, 'state.db');
      const f = new HermesFixture(path, 30);
      f.transaction(() => {
        const base = { source: 'cli', profile_name: 'alpha', started_at: t0 };
        f.session({ id: 'flag-archived', ...base, archived: 1 });
        f.session({ id: 'flag-auto', ...base, auto_archived: 1 });
        f.session({ id: 'flag-hidden', ...base, hidden: 1, pinned: 1 });
        f.session({ id: 'flag-none', ...base });
      });
      f.close();
      await importFile(t, path);
      const flags = async (id: string) => {
        const session = await t.store.sessions.get(admin, id);
        return [session.archived, session.pinned, session.hidden];
      };
      expect(await flags('flag-archived')).toEqual([true, false, false]);
      expect(await flags('flag-auto')).toEqual([true, false, false]);
      expect(await flags('flag-hidden')).toEqual([false, true, true]);
      expect(await flags('flag-none')).toEqual([false, false, false]);
    });

    it('generations are never lowered by an older file', async () => {
      const t = await fresh();
      await t.store.db
        .insertInto('conversation_generations')
        .values({ source: 'telegram', session_key: SCENARIO_KEY, generation: 9, updated_at: 0 })
        .execute();
      await importFile(t, file(30));
      const row = await t.store.db.selectFrom('conversation_generations').select('generation').executeTakeFirst();
      expect(Number(row?.generation)).toBe(9);
    });

    it('a session id taken here is a conflict left alone; replace goes through the deletion engine with a receipt', async () => {
      const t = await fresh();
      await t.store.sessions.create(admin, { id: 'no-profile', profile: 'gamma', source: 'cli', title: 'mine' });
      const path = file();
      const first = await importFile(t, path);
      expect(first.sessions).toMatchObject({ created: 17, conflicts: 1 });
      expect(first.messages).toEqual({ created: 19, skipped: 1 });
      expect(first.warnings.some((w) => w.startsWith('conflict: session no-profile:'))).toBe(true);
      expect(await t.store.sessions.get(admin, 'no-profile')).toMatchObject({
        source: 'cli',
        title: 'mine',
        messageCount: 0,
      });

      const replaced = await importFile(t, path, { onConflict: 'replace' });
      expect(replaced.sessions).toEqual({ created: 0, updated: 1, skipped: 17, conflicts: 1 });
      expect(await t.store.sessions.get(admin, 'no-profile')).toMatchObject({
        source: 'api_server',
        title: null,
        messageCount: 1,
      });
      const receipts = await t.store.receipts.list(admin, { after: 0, limit: 10, origin: 'import_replace' });
      expect(receipts.items).toHaveLength(1);
      expect(receipts.items[0]).toMatchObject({
        intent: 'maintenance',
        reason: 'import_replace',
        counts: { sessions: 1 },
      });
      expect((await importFile(t, path)).sessions).toEqual({ created: 0, updated: 0, skipped: 18, conflicts: 0 });
    });

    it('replace removes a huge session taken here in chunks before writing the id (no hidden row left holding it)', async () => {
      const t = await fresh();
      // More messages than a deletion removes inline: a plain deletion would hide it and purge later.
      await t.store.sessions.create(admin, {
        id: 'no-profile',
        profile: 'gamma',
        source: 'cli',
        messages: Array.from({ length: PURGE_LATER_ABOVE_MESSAGES + 100 }, (_, i) => ({
          role: 'user' as const,
          content: `local line ${i}`,
        })),
      });
      const replaced = await importFile(t, file(), { onConflict: 'replace' });
      expect(replaced.sessions).toMatchObject({ updated: 1, conflicts: 1 });
      expect(await t.store.sessions.get(admin, 'no-profile')).toMatchObject({ source: 'api_server', messageCount: 1 });
      const { rows } = await sql<{
        n: number;
      }>`select count(*) as n from messages where session_id = 'no-profile'`.execute(t.store.db);
      expect(Number(rows[0].n)).toBe(1);
      // The purge's deferred work (queued in case the import died before purging) found nothing left.
      await t.store.deferred.idle();
      expect(await t.store.db.selectFrom('deferred_work').selectAll().execute()).toEqual([]);
    });

    it('a session deleted here after its import stays deleted on re-import (a content-free tombstone)', async () => {
      const t = await fresh();
      const path = file();
      await importFile(t, path);
      const row = await t.store.sessions.get(admin, 'beta-origin');
      await t.store.deletion.deleteOne(
        admin,
        'beta-origin',
        { includeCompressionChain: false, ifEmpty: false },
        { ifMatch: row.revision, expectedGeneration: row.generation },
      );
      expect((await scanForIds(t.store, ['beta-origin'])).sort()).toEqual([
        'import_sessions.session_id',
        'import_sessions.source_session_id',
      ]);
      const tombstone = await t.store.db
        .selectFrom('import_sessions')
        .selectAll()
        .where('session_id', '=', 'beta-origin')
        .executeTakeFirstOrThrow();
      expect(tombstone).toMatchObject({ state: 'deleted', snapshot: null, messages_hash: null });

      const again = await importFile(t, path);
      expect(again.sessions).toEqual({ created: 0, updated: 0, skipped: 18, conflicts: 0 });
      expect(again.warnings.some((w) => w.startsWith('session beta-origin: deleted here since it was imported'))).toBe(
        true,
      );
      await expect(t.store.sessions.get(admin, 'beta-origin')).rejects.toThrow(/not found/);

      const back = await importFile(t, path, { onConflict: 'replace' });
      expect(back.sessions.created).toBe(1);
      expect((await t.store.sessions.get(admin, 'beta-origin')).messageCount).toBe(1);
    });

    it('a session moved to another profile keeps its ledger: a re-import updates it where it lives', async () => {
      const t = await fresh();
      const path = file();
      await importFile(t, path);
      await t.store.profiles.create(admin, 'elsewhere');
      await t.store.profileAdmin.move(admin, 'no-profile', 'elsewhere');
      expect((await t.store.sessions.get(admin, 'no-profile')).profile).toBe('elsewhere');
      const entry = await t.store.db
        .selectFrom('import_sessions')
        .select('state')
        .where('session_id', '=', 'no-profile')
        .executeTakeFirstOrThrow();
      expect(entry.state).toBe('imported');
      expect((await importFile(t, path)).sessions).toEqual({ created: 0, updated: 0, skipped: 18, conflicts: 0 });

      const f = HermesFixture.open(path, 30);
      f.message('no-profile', { role: 'assistant', content: 'a later answer', timestamp: t0 + 1200 });
      f.close();
      expect((await importFile(t, path)).sessions).toEqual({ created: 0, updated: 1, skipped: 17, conflicts: 0 });
      expect(await t.store.sessions.get(admin, 'no-profile')).toMatchObject({ profile: 'elsewhere', messageCount: 2 });
    });

    it('one import at a time per store', async () => {
      const t = await fresh();
      await t.store.db
        .insertInto('job_leases')
        .values({ name: 'import', holder: 'elsewhere', expires_at: Date.now() + 60_000 })
        .execute();
      await expect(importFile(t, file())).rejects.toThrow(/already running/);
      expect(await t.store.db.selectFrom('sessions').select('id').execute()).toEqual([]);
      await expect(t.store.imports.assertIdle(admin)).rejects.toThrow(/already running/);
    });
  });
}
