import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreSqliteStore } from '../restore/restore.js';
import { ManualClock } from '../shared/clock.js';
import { ConflictError, ValidationError } from '../shared/errors.js';
import { UlidGenerator } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { silentLogger } from '../shared/logger.js';
import { openStore, type StateStore } from '../store.js';
import {
  adminPrincipal,
  contextOf,
  createTestDatabase,
  openTestStore,
  TEST_PG_URL,
  type TestStore,
} from '../testing/index.js';
import { BACKUP_JOB, BackupService, pgDumpInvocation } from './backup.service.js';

const admin = contextOf(adminPrincipal);

/** Sessions with messages, some deleted (receipts), written through `store` until `stop()`. */
function keepWriting(store: StateStore, prefix: string) {
  let running = true;
  let n = 0;
  const done = (async () => {
    while (running) {
      // A request-driven writer yields between requests; a bare loop of resolved promises would not.
      await new Promise((resolve) => setImmediate(resolve));
      const id = `${prefix}-${n++}`;
      const created = await store.sessions.create(admin, {
        id,
        profile: 'bk',
        source: 'cli',
        messages: Array.from({ length: 20 }, (_, i) => ({ role: 'user' as const, content: `${id} says ${i}` })),
      });
      if (n % 3 === 0) {
        await store.deletion.deleteOne(
          admin,
          id,
          { includeCompressionChain: false, ifEmpty: false },
          { ifMatch: created.revision, expectedGeneration: created.generation },
        );
      }
    }
    return n;
  })();
  return {
    stop: async () => {
      running = false;
      return done;
    },
  };
}

/** A store's own invariants: the chain verifies, counters match rows, receipts ⇔ deletions. */
async function expectConsistent(store: StateStore) {
  expect(await store.receipts.verify(admin)).toMatchObject({ ok: true });
  const { rows } = await sql<{ counted: number; rows: number }>`
    select (select coalesce(sum(message_count), 0) from sessions) as counted, (select count(*) from messages) as rows`.execute(
    store.db,
  );
  expect(Number(rows[0].counted)).toBe(Number(rows[0].rows));
  const receipts = await store.receipts.list(admin, { after: 0, limit: 1000 });
  const deleted = receipts.items.flatMap((receipt) => receipt.identities.map((identity) => identity.id));
  if (deleted.length > 0) {
    const { rows: left } = await sql<{ n: number }>`select count(*) as n from sessions where id in (${sql.join(
      deleted,
    )})`.execute(store.db);
    expect(Number(left[0].n)).toBe(0);
  }
}

describe('SQLite backup and restore', () => {
  const clock = new ManualClock(Date.UTC(2027, 4, 1, 12));
  let t: TestStore;
  let replica: StateStore;
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-backup-'));

  beforeAll(async () => {
    t = await openTestStore('sqlite');
    replica = await openStore({ url: t.url, logger: silentLogger });
  });
  afterAll(async () => {
    await replica?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies a consistent store while two writers keep writing, and records the outcome', async () => {
    const writers = [keepWriting(t.store, 'a'), keepWriting(replica, 'b')];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const record = await t.store.backups.backupTo(join(dir, 'live.db'), { trigger: 'cli', holder: 'test' });
    const written = await Promise.all(writers.map((writer) => writer.stop()));
    expect(written.every((n) => n > 3)).toBe(true);
    expect(record).toMatchObject({ status: 'succeeded', trigger: 'cli', dialect: 'sqlite', error: null });
    expect(record.bytes).toBe(statSync(join(dir, 'live.db')).size);
    expect(statSync(join(dir, 'live.db')).mode & 0o777).toBe(0o600);
    expect(record.counts!.sessions).toBeGreaterThan(0);
    const copy = await openStore({ url: `file:${join(dir, 'live.db')}`, logger: silentLogger, migrate: false });
    try {
      await expectConsistent(copy);
    } finally {
      await copy.close();
    }
    // Every replica answers the same status: it is in the store.
    const status = await replica.backups.status(admin, null);
    expect(status.last).toMatchObject({ id: record.id, status: 'succeeded' });
    expect(status.lastSucceeded?.id).toBe(record.id);
    await expect(
      t.store.backups.backupTo(join(dir, 'live.db'), { trigger: 'cli', holder: 'test' }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('restores into an empty store (and refuses a non-empty one), chain verified, counts equal', async () => {
    const backup = join(dir, 'live.db');
    await expect(restoreSqliteStore(backup, t.url, silentLogger)).rejects.toBeInstanceOf(ConflictError);
    const target = join(dir, 'restored', 'statehouse.db');
    execFileSync('mkdir', ['-p', join(dir, 'restored')]);
    const report = await restoreSqliteStore(backup, `file:${target}`, silentLogger);
    expect(report.verify.ok).toBe(true);
    const restored = await openStore({ url: `file:${target}`, logger: silentLogger });
    try {
      await expectConsistent(restored);
      const counts = (
        await sql<{ s: number; m: number; r: number }>`select (select count(*) from sessions) as s,
          (select count(*) from messages) as m, (select count(*) from deletion_receipts) as r`.execute(restored.db)
      ).rows[0];
      expect({ sessions: Number(counts.s), messages: Number(counts.m), receipts: Number(counts.r) }).toEqual(
        report.counts,
      );
      expect(statSync(target).mode & 0o777).toBe(0o600);
    } finally {
      await restored.close();
    }
  });

  it('the scheduled backup runs once per interval and keeps the newest copies', async () => {
    const scheduled = join(dir, 'scheduled');
    const store = await openStore({ url: t.url, clock, logger: silentLogger });
    try {
      store.jobs.register(store.backups.job({ intervalMs: 60 * 60 * 1000, directory: scheduled, keep: 2 }));
      for (let hour = 0; hour < 3; hour++) {
        expect((await store.jobs.runNow(BACKUP_JOB, 'replica-a')).outcome).toBe('ran');
        expect((await store.jobs.runNow(BACKUP_JOB, 'replica-b')).outcome).toBe('served');
        clock.advance(60 * 60 * 1000);
      }
      expect(readdirSync(scheduled).sort()).toEqual([
        'statehouse-20270501T130000Z.db',
        'statehouse-20270501T140000Z.db',
      ]);
      const status = await store.backups.status(admin, null);
      expect(status.last).toMatchObject({ trigger: 'scheduled', status: 'succeeded' });
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!TEST_PG_URL)('PostgreSQL backup', () => {
  let t: TestStore;
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-pgdump-'));
  beforeAll(async () => {
    t = await openTestStore('postgres');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('explains the pg_dump recipe, runs it on request, and the dump restores with pg_restore', async () => {
    await expect(t.store.backups.backupTo(join(dir, 'x.dump'), { trigger: 'cli', holder: 'test' })).rejects.toThrow(
      /pg_dump --format=custom/,
    );
    await expect(
      t.store.backups.backupTo(join(dir, 'x.dump'), { trigger: 'cli', holder: 'test' }),
    ).rejects.toBeInstanceOf(ValidationError);
    const writer = keepWriting(t.store, 'pg');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const record = await t.store.backups.backupTo(join(dir, 'store.dump'), {
      trigger: 'cli',
      holder: 'test',
      pgDump: true,
    });
    await writer.stop();
    expect(record).toMatchObject({ status: 'succeeded', dialect: 'postgres' });
    expect(existsSync(join(dir, 'store.dump'))).toBe(true);
    // The documented restore: pg_restore into a new database, then the store opens and verifies.
    const target = await createTestDatabase('postgres');
    try {
      execFileSync('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', target.url, join(dir, 'store.dump')]);
      const restored = await openStore({ url: target.url, logger: silentLogger });
      try {
        await expectConsistent(restored);
        // pg_dump ran after this backup's ledger row was committed as running and before it was
        // marked succeeded: the restored ledger holds exactly that row, as the copy saw it.
        const { recent } = await restored.backups.status(admin, null);
        expect(recent.map(({ id, status, finishedAt }) => ({ id, status, finishedAt }))).toEqual([
          { id: record.id, status: 'running', finishedAt: null },
        ]);
      } finally {
        await restored.close();
      }
    } finally {
      await target.drop();
    }
  });
});

describe('pg_dump never sees the password on its command line, and no error text carries it', () => {
  const SECRET = 'pw-S3cret%2Fx';
  const DECODED = 'pw-S3cret/x';
  const url = `postgres://statehouse:${SECRET}@127.0.0.1:5432/statehouse?sslmode=disable`;
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-pgdump-fake-'));
  const bin = join(dir, 'bin');
  const seen = join(dir, 'seen.txt');
  let t: TestStore;
  const logged: string[] = [];
  const logger: Logger = {
    info: (message, context) => logged.push(`${message} ${JSON.stringify(context ?? {})}`),
    warn: (message, context) => logged.push(`${message} ${JSON.stringify(context ?? {})}`),
    error: (message, context) => logged.push(`${message} ${JSON.stringify(context ?? {})}`),
  };
  let path: string | undefined;

  /** A stand-in pg_dump on PATH: records its arguments and PGPASSWORD, then fails (or writes the file). */
  function fakePgDump(fail: boolean) {
    execFileSync('mkdir', ['-p', bin]);
    writeFileSync(
      join(bin, 'pg_dump'),
      [
        '#!/bin/sh',
        `printf 'args=%s\\n' "$*" > '${seen}'`,
        `printf 'PGPASSWORD=%s\\n' "$PGPASSWORD" >> '${seen}'`,
        fail
          ? `echo "pg_dump: error: connection to server failed" >&2; exit 1`
          : 'while [ "$1" != "--file" ]; do shift; done; echo dump > "$2"; exit 0',
      ].join('\n'),
    );
    chmodSync(join(bin, 'pg_dump'), 0o755);
  }

  beforeAll(async () => {
    // Any store serves for the records; the service is the PostgreSQL one, pointed at `url`.
    t = await openTestStore('sqlite');
    path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
  });
  afterAll(async () => {
    process.env.PATH = path;
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const service = () =>
    new BackupService(t.store.db, 'postgres', t.store.clock, new UlidGenerator(t.store.clock), logger, null, url);

  it('passes the password as PGPASSWORD and the URL without it', async () => {
    fakePgDump(false);
    const record = await service().backupTo(join(dir, 'ok.dump'), { trigger: 'cli', holder: 'test', pgDump: true });
    expect(record.status).toBe('succeeded');
    const text = readFileSync(seen, 'utf8');
    expect(text).toContain(`PGPASSWORD=${DECODED}`);
    const args = text.split('\n')[0];
    expect(args).toContain('--dbname postgres://statehouse@127.0.0.1:5432/statehouse?sslmode=disable');
    expect(args).not.toContain('S3cret');
  });

  it('a failed dump: the thrown error, the log and the recorded status carry no password', async () => {
    fakePgDump(true);
    logged.length = 0;
    const failure = await service()
      .backupTo(join(dir, 'failed.dump'), { trigger: 'cli', holder: 'test', pgDump: true })
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toContain('pg_dump');
    const status = await service().status(admin, null);
    expect(status.last).toMatchObject({ status: 'failed' });
    for (const text of [String(failure), failure!.message, JSON.stringify(status), ...logged]) {
      expect(text).not.toContain('S3cret');
    }
    expect(readFileSync(seen, 'utf8').split('\n')[0]).not.toContain('S3cret');
  });

  it('also takes a password given as a query parameter off the command line', () => {
    expect(pgDumpInvocation('postgres://u@h:5432/db?password=abc%20d&sslmode=require')).toEqual({
      url: 'postgres://u@h:5432/db?sslmode=require',
      env: { PGPASSWORD: 'abc d' },
    });
    expect(pgDumpInvocation('postgres://u@h/db')).toEqual({ url: 'postgres://u@h/db', env: {} });
  });
});
