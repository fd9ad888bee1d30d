import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportReport } from '@statehouse/contracts';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminPrincipal,
  buildHermesScenario,
  contextOf,
  EVERY_MESSAGE,
  HermesFixture,
  openTestStore,
  SCENARIO_T0,
  TEST_DIALECTS,
  type TestStore,
} from '../../testing/index.js';

const admin = contextOf(adminPrincipal);
const t0 = SCENARIO_T0;
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-input-'));
  dirs.push(dir);
  return dir;
}

/** Every file of the directory with the sha256 of its bytes: "never a change to the source". */
function fileState(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [
        name,
        createHash('sha256')
          .update(readFileSync(join(dir, name)))
          .digest('hex'),
      ]),
  );
}

async function attempt(t: TestStore, path: string, profile = 'gamma') {
  try {
    const result = await t.store.imports.runHermes(admin, { path, profile, onConflict: 'skip', dryRun: false });
    return { report: result.report as ImportReport, error: null as Error | null };
  } catch (error) {
    return { report: null, error: error as Error };
  }
}

/** No partial session: every session here has exactly the messages its counters and ledger say. */
async function assertWholeSessions(t: TestStore): Promise<void> {
  const sessions = await t.store.db.selectFrom('sessions').select(['id', 'message_count']).execute();
  for (const session of sessions) {
    const rows = await t.store.db
      .selectFrom('messages')
      .select(['id', 'active', 'compacted', 'display_kind'])
      .where('session_id', '=', session.id)
      .execute();
    const counted = rows.filter(
      (row) => row.display_kind !== 'hidden' && (Number(row.active) === 1 || Number(row.compacted) === 1),
    ).length;
    expect([session.id, Number(session.message_count)]).toEqual([session.id, counted]);
    const ledger = await t.store.db
      .selectFrom('import_messages')
      .select('message_id')
      .where('session_id', '=', session.id)
      .execute();
    expect(ledger.length).toBe(rows.length);
  }
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the source file is never changed', { timeout: 60_000 }, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore('sqlite');
  });
  afterAll(async () => t?.close());

  it('a WAL-mode file without its -wal: same bytes, no -wal/-shm left beside it', async () => {
    const dir = tempDir();
    buildHermesScenario(join(dir, 'state.db'), 30).close();
    const before = fileState(dir);
    expect(Object.keys(before)).toEqual(['state.db']);
    expect(readFileSync(join(dir, 'state.db'))[18]).toBe(2); // the header says WAL
    const { report } = await attempt(t, join(dir, 'state.db'));
    expect(report?.sessions.created).toBe(18);
    expect(fileState(dir)).toEqual(before);
  });

  it('a file whose committed data lives only in its -wal: imported, and both files untouched', async () => {
    const writer = tempDir();
    const fixture = buildHermesScenario(join(writer, 'state.db'), 30);
    fixture.session({ id: 'wal-only', source: 'cli', profile_name: 'alpha', started_at: t0 + 5000 });
    fixture.message('wal-only', { role: 'user', content: 'written after the last checkpoint', timestamp: t0 + 5001 });
    // A writer that never checkpointed (crashed, or still running): copy the pair as it stands.
    const dir = tempDir();
    copyFileSync(join(writer, 'state.db'), join(dir, 'state.db'));
    copyFileSync(join(writer, 'state.db-wal'), join(dir, 'state.db-wal'));
    fixture.close();
    const before = fileState(dir);
    expect(Object.keys(before)).toEqual(['state.db', 'state.db-wal']);
    expect(statSync(join(dir, 'state.db-wal')).size).toBeGreaterThan(0);
    const fresh = await openTestStore('sqlite');
    try {
      const { report } = await attempt(fresh, join(dir, 'state.db'));
      expect(report?.sessions.created).toBe(19);
      expect((await fresh.store.sessions.get(admin, 'wal-only')).messageCount).toBe(1);
    } finally {
      await fresh.close();
    }
    expect(fileState(dir)).toEqual(before);
  });

  it('a rollback-journal file: same bytes, nothing created beside it', async () => {
    const dir = tempDir();
    const fixture = new HermesFixture(join(dir, 'state.db'), 21, { wal: false });
    fixture.session({ id: 'plain', source: 'cli', started_at: t0 });
    fixture.message('plain', { role: 'user', content: 'journal mode delete', timestamp: t0 + 1 });
    fixture.close();
    const before = fileState(dir);
    const fresh = await openTestStore('sqlite');
    try {
      expect((await attempt(fresh, join(dir, 'state.db'))).report?.sessions.created).toBe(1);
    } finally {
      await fresh.close();
    }
    expect(fileState(dir)).toEqual(before);
  });
});

describe('what the file has is probed, never read from schema_version', { timeout: 60_000 }, () => {
  const cases = [
    ['a v21 file that says it is v30', 21, 'update schema_version set version = 30'],
    ['a v30 file that says it is v21', 30, 'update schema_version set version = 21'],
    ['a v30 file without schema_version', 30, 'drop table schema_version'],
  ] as const;
  for (const [name, version, edit] of cases) {
    it(name, async () => {
      const t = await openTestStore('sqlite');
      try {
        const dir = tempDir();
        const honest = join(dir, 'honest.db');
        const lying = join(dir, 'lying.db');
        buildHermesScenario(honest, version).close();
        buildHermesScenario(lying, version).close();
        const db = new Database(lying);
        db.exec(edit);
        db.close();
        const expected = await t.store.imports.runHermes(admin, {
          path: honest,
          profile: 'gamma',
          onConflict: 'skip',
          dryRun: true,
        });
        const { report, error } = await attempt(t, lying);
        expect(error).toBeNull();
        expect(report).toEqual(expected.report);
        expect(report?.sessions.created).toBe(18);
        // The v30-only fields came through (or stayed empty) by what the file has.
        const tip = await t.store.sessions.get(admin, 'cmp-tip');
        expect(tip.transportProfile).toBe(version === 30 ? 'tui-main' : null);
        expect(tip.messageCount).toBe(version === 30 ? 3 : 5);
      } finally {
        await t.close();
      }
    });
  }
});

describe('messages keep the order of their Hermes ids, never of their timestamps', { timeout: 60_000 }, () => {
  it('a clock that went backwards and two sessions written in turns', async () => {
    const t = await openTestStore('sqlite');
    try {
      const dir = tempDir();
      const f = new HermesFixture(join(dir, 'state.db'), 30);
      f.transaction(() => {
        f.session({ id: 'a', source: 'cli', profile_name: 'alpha', started_at: t0 });
        f.session({ id: 'b', source: 'cli', profile_name: 'alpha', started_at: t0 });
        f.message('a', { role: 'user', content: 'a1', timestamp: t0 + 50 });
        f.message('b', { role: 'user', content: 'b1', timestamp: t0 + 1 });
        f.message('a', { role: 'assistant', content: 'a2', timestamp: t0 + 10 });
        f.message('a', { role: 'user', content: 'a3', timestamp: t0 + 30 });
        f.message('b', { role: 'assistant', content: 'b2', timestamp: t0 });
      });
      f.close();
      const { error } = await attempt(t, join(dir, 'state.db'));
      expect(error).toBeNull();
      const contents = async (id: string) =>
        (await t.store.messages.list(admin, id, { limit: 10, ...EVERY_MESSAGE })).items.map((m) => m.content);
      expect(await contents('a')).toEqual(['a1', 'a2', 'a3']);
      expect(await contents('b')).toEqual(['b1', 'b2']);
    } finally {
      await t.close();
    }
  });
});

describe('files that cannot be imported: a clear error, nothing written, the file unchanged', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore('sqlite');
  });
  afterAll(async () => t?.close());

  const refused = async (path: string, message: RegExp) => {
    const before = fileState(join(path, '..'));
    const { report, error } = await attempt(t, path);
    expect(report).toBeNull();
    expect(error?.message).toMatch(message);
    expect(await t.store.db.selectFrom('sessions').select('id').execute()).toEqual([]);
    expect(fileState(join(path, '..'))).toEqual(before);
  };

  it('a file that is not SQLite', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.db'), 'these are not the bytes you are looking for'.repeat(100));
    await refused(join(dir, 'state.db'), /^not a SQLite database$/);
  });

  it('an empty file and a missing file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.db'), '');
    await refused(join(dir, 'state.db'), /the file is empty/);
    await expect(attempt(t, join(dir, 'missing.db'))).resolves.toMatchObject({ report: null });
  });

  it('a SQLite file that is not a Hermes store, and a Statehouse database', async () => {
    const dir = tempDir();
    const other = new Database(join(dir, 'state.db'));
    other.exec('create table sessions (id text primary key, name text); create table notes (body text)');
    other.close();
    await refused(join(dir, 'state.db'), /not a Hermes Agent state\.db: no messages table/);

    const ours = tempDir();
    const statehouse = await openTestStore('sqlite');
    const location = statehouse.store.location;
    await statehouse.store.close();
    copyFileSync(location, join(ours, 'state.db'));
    await refused(join(ours, 'state.db'), /this is a Statehouse database/);
  });

  it('records the failed run with its reason', async () => {
    const jobs = await t.store.imports.list(admin, { limit: 20 });
    expect(jobs.items.length).toBeGreaterThan(0);
    expect(jobs.items.every((job) => job.state === 'failed' && job.error)).toBe(true);
  });
});

describe('truncated and corrupt files: an error or warnings, never a partial session', { timeout: 60_000 }, () => {
  for (const damage of ['truncated', 'corrupt'] as const) {
    it(`a ${damage} file`, async () => {
      const dir = tempDir();
      const fixture = new HermesFixture(join(dir, 'state.db'), 30, { wal: false });
      fixture.transaction(() => {
        for (let s = 0; s < 60; s++) {
          fixture.session({ id: `s${s}`, source: 'cli', profile_name: 'alpha', started_at: t0 + s });
          for (let m = 0; m < 40; m++) {
            fixture.message(`s${s}`, {
              role: m % 2 ? 'assistant' : 'user',
              content: `${'x'.repeat(200)} ${s}/${m}`,
              timestamp: t0 + s + m / 100,
            });
          }
        }
      });
      fixture.close();
      const path = join(dir, 'state.db');
      const size = statSync(path).size;
      if (damage === 'truncated') {
        truncateSync(path, Math.floor(size * 0.6));
      } else {
        // Torn pages: the b-tree headers of a run of pages in the middle are overwritten.
        const bytes = readFileSync(path);
        const pageSize = bytes.readUInt16BE(16);
        const first = Math.floor(size / pageSize / 3);
        for (let page = first; page < first + 8; page++) {
          for (let i = 0; i < 12; i++) bytes[page * pageSize + i] = 0xa5 ^ i;
        }
        writeFileSync(path, bytes);
      }
      const before = fileState(dir);
      const t = await openTestStore('sqlite');
      try {
        const { report, error } = await attempt(t, path);
        if (error) {
          expect(error.message).toMatch(/corrupt|truncated|malformed|cannot be read|not a database/i);
        } else {
          expect(report!.warnings.some((w) => /cannot be read|malformed|corrupt|integrity/i.test(w))).toBe(true);
        }
        await assertWholeSessions(t);
      } finally {
        await t.close();
      }
      expect(fileState(dir)).toEqual(before);
    });
  }
});

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(
    `bad rows are repaired or skipped with a warning on ${dialect}`,
    { timeout: 30_000 },
    () => {
      let t: TestStore;
      let report: ImportReport;
      let dir: string;
      let before: Record<string, string>;

      beforeAll(async () => {
        dir = tempDir();
        const f = new HermesFixture(join(dir, 'state.db'), 30);
        f.db.exec('alter table sessions add column custom_flag integer; create table my_plugin_data (x text)');
        f.transaction(() => {
          f.session({
            id: 'json',
            source: 'cli',
            profile_name: 'alpha',
            started_at: t0,
            model_config: '{not json',
            origin_json: '[1, 2]',
            custom_flag: 1,
          });
          f.message('json', { role: 'assistant', content: 'calls', tool_calls: 'oops', timestamp: t0 + 1 });
          f.message('json', { role: 'user', content: '\u0000json:{bad', timestamp: t0 + 2 });
          f.session({
            id: 'time',
            source: 'cli',
            profile_name: 'alpha',
            started_at: -5,
            ended_at: 1e15,
            end_reason: 'cli_close',
          });
          f.message('time', { role: 'user', content: 'first', timestamp: t0 + 10 });
          f.message('time', { role: 'user', content: 'when?', timestamp: 'yesterday-ish' });
          f.session({ id: 'text', source: 'cli', profile_name: 'alpha', started_at: t0, title: 'nul\u0000title' });
          f.message('text', { role: 'user', content: 'before\u0000after', timestamp: t0 + 1 });
          f.message('text', {
            role: 'user',
            content: '\u0000json:[{"type":"text","text":"lone \\ud800 half"}]',
            timestamp: t0 + 2,
          });
          f.message('text', { role: 'tool', content: 'ok', tool_calls: '[{"id":"\\udc00x"}]', timestamp: t0 + 3 });
          f.db
            .prepare(
              `insert into messages (session_id, role, content, timestamp) values ('text', 'user', cast(x'41eda08042' as text), ?)`,
            )
            .run(t0 + 4);
          f.session({ id: 'bad\u0000id', source: 'CLI Tool!', profile_name: 'Alpha Team', started_at: t0 });
          f.session({
            id: 'orphan',
            source: 'cli',
            profile_name: 'alpha',
            parent_session_id: 'nowhere',
            started_at: t0,
          });
          f.session({
            id: 'loop-a',
            source: 'cli',
            profile_name: 'alpha',
            parent_session_id: 'loop-b',
            started_at: t0 + 1,
          });
          f.session({
            id: 'loop-b',
            source: 'cli',
            profile_name: 'alpha',
            parent_session_id: 'loop-a',
            started_at: t0 + 2,
          });
          f.session({ id: 'self', source: 'cli', profile_name: 'alpha', parent_session_id: 'self', started_at: t0 });
          f.message('orphan', { role: 'weird-role', content: 'odd', timestamp: t0 + 1, platform_message_id: 'dup' });
          f.message('orphan', { role: 'user', content: 'again', timestamp: t0 + 2, platform_message_id: 'dup' });
        });
        f.close();
        before = fileState(dir);
        t = await openTestStore(dialect);
        const outcome = await attempt(t, join(dir, 'state.db'));
        expect(outcome.error).toBeNull();
        report = outcome.report!;
      }, 60_000);
      afterAll(async () => t?.close(), 60_000);

      it('imports every session whole and leaves the file as it was', async () => {
        expect(report.sessions.created).toBe(8);
        expect(report.messages.created).toBe(10);
        await assertWholeSessions(t);
        expect(fileState(dir)).toEqual(before);
      });

      it('unknown tables and columns are ignored with a warning', () => {
        expect(report.warnings).toContain('source: unknown columns ignored: sessions.custom_flag');
        expect(report.warnings).toContain('source: unknown tables ignored: my_plugin_data');
      });

      it('invalid JSON is left out with a warning, the row kept', async () => {
        expect(report.warnings).toContain(
          'session json: invalid JSON in messages.content, messages.tool_calls, model_config, origin_json (left out)',
        );
        const session = await t.store.sessions.get(admin, 'json');
        expect(session).toMatchObject({ modelConfig: null, origin: null, messageCount: 2 });
        const messages = await t.store.messages.list(admin, 'json', { limit: 10, ...EVERY_MESSAGE });
        expect(messages.items.map((m) => [m.content, m.toolCalls])).toEqual([
          ['calls', null],
          ['{bad', null],
        ]);
      });

      it('timestamps out of range are replaced with a warning', async () => {
        expect(report.warnings).toContain(
          'session time: timestamps out of range in ended_at, messages.timestamp, started_at (replaced)',
        );
        const session = await t.store.sessions.get(admin, 'time');
        expect(session.startedAt).toBe(new Date((t0 + 10) * 1000).toISOString());
        expect(session.endedAt).toBe(new Date((t0 + 10) * 1000).toISOString());
        const messages = await t.store.messages.list(admin, 'time', { limit: 10, ...EVERY_MESSAGE });
        expect(messages.items.map((m) => m.timestamp)).toEqual([
          new Date((t0 + 10) * 1000).toISOString(),
          new Date((t0 + 10) * 1000).toISOString(),
        ]);
      });

      it('NUL bytes and lone surrogates become U+FFFD, the same in both dialects', async () => {
        expect(report.warnings).toContain('session text: 2 text value(s) held NUL bytes (stored as U+FFFD)');
        expect(report.warnings).toContain('session text: 2 text value(s) held lone surrogates (stored as U+FFFD)');
        expect((await t.store.sessions.get(admin, 'text')).title).toBe('nul\uFFFDtitle');
        const messages = await t.store.messages.list(admin, 'text', { limit: 10, ...EVERY_MESSAGE });
        expect(messages.items.map((m) => m.content)).toEqual([
          'before\uFFFDafter',
          [{ type: 'text', text: 'lone \uFFFD half' }],
          'ok',
          expect.stringMatching(/^A\uFFFD+B$/),
        ]);
        expect(messages.items[2].toolCalls).toEqual([{ id: '\uFFFDx' }]);
      });

      it('ids, sources, profiles and roles outside their alphabets are folded with a warning', async () => {
        const folded = report.warnings.find((w) =>
          w.startsWith('session bad\uFFFDid: id is not valid here; imported as hermes-'),
        );
        expect(folded).toBeDefined();
        const id = folded!.split('imported as ')[1];
        expect(await t.store.sessions.get(admin, id)).toMatchObject({ source: 'cli-tool', profile: 'alpha-team' });
        expect(report.warnings).toContain('profile "Alpha Team" imported as "alpha-team"');
        expect(report.warnings).toContain(
          'session orphan: messages with unknown roles (weird-role) imported as system',
        );
        expect(report.warnings).toContain(
          'session orphan: 1 message(s) repeated a platform message id; kept without it',
        );
      });

      it('a dangling parent, a cycle and a self-parent become roots with a warning each', async () => {
        expect(report.warnings).toContain('session orphan: parent nowhere is not in the file; imported as a root');
        expect(report.warnings).toContain('session self: names itself as its parent; imported as a root');
        expect(
          report.warnings.some((w) =>
            /^lineage cycle loop-(a|b) → .* the edge from loop-a to its parent was dropped$/.test(w),
          ),
        ).toBe(true);
        const rows = await t.store.db
          .selectFrom('sessions')
          .select(['id', 'parent_session_id', 'lineage_kind'])
          .where('id', 'in', ['orphan', 'self', 'loop-a', 'loop-b'])
          .orderBy('id')
          .execute();
        expect(rows.map((row) => [row.id, row.parent_session_id])).toEqual([
          ['loop-a', null],
          ['loop-b', 'loop-a'],
          ['orphan', null],
          ['self', null],
        ]);
      });
    },
  );
}

describe('session totals: per-model usage fills what the sessions row does not state', { timeout: 60_000 }, () => {
  it('a session without a cost or token total takes the sum of its usage rows; a stated total is kept', async () => {
    const t = await openTestStore('sqlite');
    try {
      const dir = tempDir();
      const f = new HermesFixture(join(dir, 'state.db'), 30);
      f.transaction(() => {
        f.session({ id: 'bare', source: 'cli', profile_name: 'alpha', started_at: t0 });
        f.session({
          id: 'stated',
          source: 'cli',
          profile_name: 'alpha',
          started_at: t0,
          input_tokens: 9000,
          estimated_cost_usd: 1.5,
        });
        for (const session of ['bare', 'stated']) {
          f.message(session, { role: 'user', content: `hello ${session}`, timestamp: t0 + 1 });
          f.row('session_model_usage', {
            session_id: session,
            model: 'claude-x',
            task: '',
            input_tokens: 1000,
            output_tokens: 200,
            estimated_cost_usd: 0.4,
            first_seen: t0,
            last_seen: t0 + 1,
          });
          f.row('session_model_usage', {
            session_id: session,
            model: 'claude-haiku',
            task: 'compression',
            input_tokens: 300,
            output_tokens: 50,
            estimated_cost_usd: 0.02,
            first_seen: t0,
            last_seen: t0 + 1,
          });
        }
      });
      f.close();
      const { error } = await attempt(t, join(dir, 'state.db'));
      expect(error).toBeNull();
      const totals = await t.store.db
        .selectFrom('sessions')
        .select(['id', 'input_tokens', 'output_tokens', 'estimated_cost_usd'])
        .orderBy('id')
        .execute();
      expect(
        totals.map((s) => [s.id, Number(s.input_tokens), Number(s.output_tokens), Number(s.estimated_cost_usd)]),
      ).toEqual([
        ['bare', 1300, 250, 0.42],
        ['stated', 9000, 250, 1.5],
      ]);
    } finally {
      await t.close();
    }
  });
});
