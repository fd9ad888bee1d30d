import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openStore, type StateStore, SYSTEM_PRINCIPAL, silentLogger } from '@statehouse/state';
import {
  buildHermesBulk,
  buildHermesScenario,
  createTestDatabase,
  dumpImportedState,
  type TestDatabase,
} from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './harness.js';

/**
 * The import CLI as users run it: a real child process against a real database. Needs the built
 * CLI (`npm test` builds first).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = join(ROOT, 'apps/api/dist/cli/import.js');
const system = { principal: SYSTEM_PRINCIPAL, channel: 'system' as const };

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-cli-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function assertBuilt() {
  if (!existsSync(CLI)) throw new Error('the import CLI is not built: run `npm run build` (npm test does it first)');
}

async function runCli(args: string[], databaseUrl: string, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, STATEHOUSE_DATABASE_URL: databaseUrl, NO_COLOR: '1', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

describe('npm run import -- hermes (CLI)', () => {
  let database: TestDatabase;
  let file: string;

  beforeAll(async () => {
    assertBuilt();
    database = await createTestDatabase('sqlite');
    file = join(tempDir(), 'state.db');
    buildHermesScenario(file, 30).close();
  }, 60_000);
  afterAll(async () => database?.drop(), 60_000);

  it('prints progress on stderr and the JSON report as the last line of stdout', async () => {
    const dry = await runCli(['hermes', '--db', file, '--profile', 'gamma', '--dry-run'], database.url);
    expect(dry.code).toBe(0);
    const rehearsed = JSON.parse(lastLine(dry.stdout));
    expect(dry.stderr).toMatch(/^import: sessions/m);
    expect(dry.stderr).toMatch(/dry run \(nothing written\)/);

    const real = await runCli(['hermes', '--db', file, '--profile', 'gamma'], database.url);
    expect(real.code).toBe(0);
    expect(real.stdout.trimEnd().split('\n')).toHaveLength(1);
    const report = JSON.parse(lastLine(real.stdout));
    expect(Object.keys(report)).toEqual([
      'sessions',
      'messages',
      'lineage',
      'routes',
      'delegations',
      'deliveries',
      'warnings',
    ]);
    expect(report).toMatchObject({
      sessions: { created: 18, updated: 0, skipped: 0, conflicts: 0 },
      messages: { created: 20, skipped: 0 },
      lineage: { compression: 3, branch: 2, reset: 2, delegate: 2 },
      routes: 2,
    });
    expect(rehearsed).toEqual(report);
    expect(real.stderr).toMatch(/^import: done 100% \(20\/20 messages, 18\/18 sessions\)$/m);

    const again = await runCli(['hermes', '--db', file, '--profile', 'gamma', '--on-conflict=skip'], database.url);
    expect(JSON.parse(lastLine(again.stdout)).sessions).toEqual({ created: 0, updated: 0, skipped: 18, conflicts: 0 });
  });

  it.skipIf(!existsSync('/usr/bin/script'))('draws a progress bar on a terminal', async () => {
    // util-linux `script` runs the CLI on a pseudo-terminal (stdout and stderr both go to it).
    const fresh = await createTestDatabase('sqlite');
    try {
      const command = [CLI, 'hermes', '--db', file, '--profile', 'gamma'].map((arg) => `'${arg}'`).join(' ');
      const { stdout } = await promisify(execFile)(
        '/usr/bin/script',
        ['-qec', `'${process.execPath}' ${command}`, '/dev/null'],
        {
          cwd: ROOT,
          env: { ...process.env, STATEHOUSE_DATABASE_URL: fresh.url },
        },
      );
      expect(stdout).toContain('\r\u001b[2K');
      expect(stdout).toMatch(/█+ 100% done · 20\/20 messages, 18\/18 sessions/);
      expect(stdout).not.toMatch(/^import: /m);
      expect(JSON.parse(lastLine(stdout.replaceAll('\r', ''))).sessions.created).toBe(18);
    } finally {
      await fresh.drop();
    }
  });

  it('usage errors and files that cannot be imported exit non-zero with the reason on stderr', async () => {
    const usage = await runCli(['hermes'], database.url);
    expect([usage.code, usage.stdout]).toEqual([2, '']);
    expect(usage.stderr).toMatch(/usage: npm run import -- hermes --db PATH/);
    const badFlag = await runCli(['hermes', '--db', file, '--on-conflict=overwrite'], database.url);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/--on-conflict must be skip or replace/);
    const notSqlite = join(tempDir(), 'notes.txt');
    writeFileSync(notSqlite, 'hello');
    const refused = await runCli(['hermes', '--db', notSqlite], database.url);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toMatch(/statehouse import: not a SQLite database/);
  });
});

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`kill -9 during an import, then a re-run, equals one clean run (${dialect})`, () => {
    const databases: TestDatabase[] = [];
    let file: string;
    let total: { sessions: number; messages: number };

    beforeAll(async () => {
      assertBuilt();
      file = join(tempDir(), 'state.db');
      total = buildHermesBulk(file, { conversations: 60, messagesPerSession: 25 });
    }, 60_000);
    afterAll(async () => {
      for (const database of databases) await database.drop();
    }, 60_000);

    const fresh = async () => {
      const database = await createTestDatabase(dialect);
      databases.push(database);
      return database;
    };

    it('leaves no half-imported session, resumes at once, and ends where a clean run ends', {
      timeout: 180_000,
    }, async () => {
      const killed = await fresh();
      // Prepare the schema first, so the child spends its time importing.
      await (await openStore({ url: killed.url, logger: silentLogger })).close();
      const child: ChildProcess = spawn(process.execPath, [CLI, 'hermes', '--db', file], {
        cwd: ROOT,
        env: { ...process.env, STATEHOUSE_DATABASE_URL: killed.url, STATEHOUSE_IMPORT_BATCH_MS: '4' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<NodeJS.Signals | null>((done) => child.once('exit', (_code, signal) => done(signal)));
      const observer = await openStore({ url: killed.url, logger: silentLogger });
      let imported = 0;
      try {
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline) {
          const row = await observer.db
            .selectFrom('import_sessions')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          imported = Number(row.n);
          if (imported >= 40) break;
          await new Promise((wait) => setTimeout(wait, 10));
        }
        child.kill('SIGKILL');
        expect(await exited).toBe('SIGKILL');
        await assertNoPartialSession(observer, total.sessions);
        const jobs = await observer.imports.list(system, { limit: 5 });
        expect(jobs.items[0].state).toBe('running');
        // The run's counts so far (GET /v1/imports/:id) commit with each unit of work: they are
        // exactly what the store holds at the kill.
        const held = await observer.db
          .selectFrom('import_messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const sessionsHeld = await observer.db
          .selectFrom('import_sessions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        expect(jobs.items[0].progress).toMatchObject({
          phase: 'sessions',
          sessionsTotal: total.sessions,
          messagesTotal: total.messages,
          sessionsDone: Number(sessionsHeld.n),
          messagesDone: Number(held.n),
        });
        expect(jobs.items[0].report.sessions.created).toBe(Number(sessionsHeld.n));
        expect(jobs.items[0].report.messages.created).toBe(Number(held.n));
      } finally {
        await observer.close();
      }

      // The dead run's lease is taken over at once (its process is provably gone).
      const resumed = await runCli(['hermes', '--db', file], killed.url);
      expect(resumed.code).toBe(0);
      const report = JSON.parse(lastLine(resumed.stdout));
      expect(report.sessions.created + report.sessions.skipped).toBe(total.sessions);
      expect(report.sessions.skipped).toBeGreaterThanOrEqual(40);

      const clean = await fresh();
      const once = await runCli(['hermes', '--db', file], clean.url);
      expect(JSON.parse(lastLine(once.stdout)).messages.created).toBe(total.messages);

      const [a, b] = await Promise.all([killed, clean].map((d) => openStore({ url: d.url, logger: silentLogger })));
      try {
        expect(await dumpImportedState(a)).toEqual(await dumpImportedState(b));
        const jobs = await a.imports.list(system, { limit: 5 });
        expect(jobs.items.map((job) => job.state)).toEqual(['succeeded', 'interrupted']);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}

/** Every session written so far is whole: counters and the ledger agree with its messages. */
async function assertNoPartialSession(store: StateStore, total: number): Promise<void> {
  const sessions = await store.db.selectFrom('sessions').select(['id', 'message_count']).execute();
  expect(sessions.length).toBeGreaterThan(0);
  expect(sessions.length).toBeLessThan(total);
  const counts = await store.db
    .selectFrom('messages')
    .select(['session_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('session_id')
    .execute();
  const ledger = await store.db
    .selectFrom('import_messages')
    .select(['session_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('session_id')
    .execute();
  const byId = new Map(counts.map((row) => [row.session_id, Number(row.n)]));
  const ledgerById = new Map(ledger.map((row) => [row.session_id, Number(row.n)]));
  for (const session of sessions) {
    // 25 messages per session in the file: each one is all there or not there at all.
    expect([session.id, byId.get(session.id)]).toEqual([session.id, 25]);
    expect([session.id, ledgerById.get(session.id)]).toEqual([session.id, 25]);
  }
  const entries = await store.db.selectFrom('import_sessions').select('session_id').execute();
  expect(entries.length).toBe(sessions.length);
}
