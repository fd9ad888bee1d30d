import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DB, Executor } from '../db/database.js';
import { SqliteWriteWorker } from '../db/sqlite-write-worker.js';
import { adminPrincipal, contextOf, openTestStore, type TestStore } from '../testing/index.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

/**
 * SQLite: a transaction's new messages go into the search indexes once, just before its COMMIT
 * (migration 2026-12-01T06.00, docs/architecture.md "Group commit"), instead of at every request
 * savepoint of a group. Whatever happens to a row before that COMMIT — rolled back, updated,
 * deleted, hidden, the process killed — the committed indexes must hold exactly the postings the
 * committed messages call for, and nothing may stay pending.
 */

const admin = contextOf(adminPrincipal);
const TABLES = ['messages_fts', 'messages_trgm'] as const;

let t: TestStore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function open(searchIndexLagMs = 0) {
  const groups: number[] = [];
  t = await openTestStore('sqlite', {
    // Groups close only at the end of the event-loop turn (no request or time limit in the way),
    // and no merger folds segments behind the test's back. Every COMMIT indexes its rows unless a
    // test of the search-index lag (below) asks for one.
    groupCommit: { maxRequests: 1000, maxMs: 60_000, searchIndexLagMs },
    ftsMerger: false,
    onWriteLock: (_ms, requests) => groups.push(requests),
  });
  await t.store.sessions.create(admin, { id: 's1', profile: 'p', source: 'cli' });
  return { store: t.store, groups, path: t.url.replace(/^file:/, '') };
}

async function segments(db: Executor, table: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(distinct segid) as n from ${sql.table(`${table}_idx`)}`.execute(db);
  return Number(rows[0].n);
}

async function pendingRows(db: Executor): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from messages_search_pending`.execute(db);
  return Number(rows[0].n);
}

/**
 * What each index holds: words over every visible message (`excludeSource: []` widens the default
 * scope past the substring index), substrings in the default scope (exactly the substring index).
 */
async function hits(q: string, mode: 'word' | 'substring' = 'word'): Promise<string[]> {
  const scope = mode === 'word' ? { excludeSource: [] } : {};
  const found = await t!.store.search.search(admin, { q, mode, limit: 50, ...scope });
  expect(found.degraded).toBe(false);
  return found.items.map((item) => String(item.messageId));
}

async function integrityOk(): Promise<boolean> {
  const status = await t!.store.searchIndex.status(admin, true);
  return status.integrity?.ok === true;
}

const insertMessage = async (db: Kysely<DB>, content: string, displayKind = 'visible') => {
  const { rows } = await sql<{ id: number }>`
    insert into messages (session_id, role, content, timestamp, display_kind)
    values ('s1', 'user', ${content}, 0, ${displayKind}) returning id`.execute(db);
  return Number(rows[0].id);
};

describe('search indexes written at COMMIT (SQLite)', () => {
  it('a group of appends writes one segment per index, and every message is searchable once its append resolves', async () => {
    const { store, groups } = await open();
    const before = await Promise.all(TABLES.map((table) => segments(store.db, table)));
    const appended = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        store.messages.append(admin, 's1', { messages: [{ role: 'user', content: `quokkaword${i} in a group` }] }),
      ),
    );
    expect(groups.at(-1)).toBe(16);
    // One FTS5 segment per index for the whole group (it used to be one per request: 16).
    const after = await Promise.all(TABLES.map((table) => segments(store.db, table)));
    expect(after.map((n, i) => n - before[i])).toEqual([1, 1]);
    for (let i = 0; i < 16; i++) {
      expect(await hits(`quokkaword${i}`)).toEqual([String(appended[i].ids[0])]);
    }
    expect(await hits('okkawor', 'substring')).toHaveLength(16);
    expect(await pendingRows(store.db)).toBe(0);
    expect(await integrityOk()).toBe(true);
  });

  it('a request rolled back inside a group leaves no postings and nothing pending; its neighbours keep theirs', async () => {
    const { store, groups } = await open();
    const results = await Promise.allSettled([
      store.messages.append(admin, 's1', { messages: [{ role: 'user', content: 'kept wombatfirst' }] }),
      store.db.transaction().execute(async (trx) => {
        await insertMessage(trx, 'doomed wombatgone');
        throw new Error('this request fails after its insert');
      }),
      store.messages.append(admin, 's1', { messages: [{ role: 'user', content: 'kept wombatlast' }] }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(groups.at(-1)).toBe(3);
    expect(await hits('wombatgone')).toEqual([]);
    expect(await hits('batgon', 'substring')).toEqual([]);
    expect(await hits('wombatfirst')).toHaveLength(1);
    expect(await hits('wombatlast')).toHaveLength(1);
    expect(await pendingRows(store.db)).toBe(0);
    expect(await integrityOk()).toBe(true);
  });

  it('a row updated, hidden or deleted by the transaction (or a later request of its group) that inserted it keeps the indexes consistent', async () => {
    const { store, groups } = await open();
    const hiddenLater = await insertMessage(store.db, 'committed then hidden narwhalold');
    await Promise.all([
      // One transaction: insert, rewrite, insert, delete, insert, hide.
      store.db.transaction().execute(async (trx) => {
        const rewritten = await insertMessage(trx, 'first text narwhalbefore');
        await sql`update messages set content = 'second text narwhalafter' where id = ${rewritten}`.execute(trx);
        const removed = await insertMessage(trx, 'short lived narwhalremoved');
        await sql`delete from messages where id = ${removed}`.execute(trx);
        const hidden = await insertMessage(trx, 'never shown narwhalhidden');
        await sql`update messages set display_kind = 'hidden' where id = ${hidden}`.execute(trx);
        await insertMessage(trx, 'inserted hidden narwhalshownlater', 'hidden');
      }),
      // Later requests of the same group: the rows above are still pending for them.
      store.db.transaction().execute(async (trx) => {
        await sql`update messages set content = 'third text narwhallast' where content = 'second text narwhalafter'`.execute(
          trx,
        );
        await sql`update messages set substring_indexed = 0 where content = 'third text narwhallast'`.execute(trx);
        await sql`update messages set display_kind = 'visible' where content = 'inserted hidden narwhalshownlater'`.execute(
          trx,
        );
        await sql`update messages set display_kind = 'hidden' where id = ${hiddenLater}`.execute(trx);
      }),
      store.db.transaction().execute(async (trx) => {
        const late = await insertMessage(trx, 'inserted and gone narwhaltwice');
        await sql`delete from messages where id = ${late}`.execute(trx);
      }),
    ]);
    expect(groups.at(-1)).toBe(3);
    for (const gone of [
      'narwhalbefore',
      'narwhalafter',
      'narwhalremoved',
      'narwhalhidden',
      'narwhaltwice',
      'narwhalold',
    ]) {
      expect(await hits(gone)).toEqual([]);
    }
    expect(await hits('narwhallast')).toHaveLength(1);
    // Left out of the substring index by the later request.
    expect(await hits('whallas', 'substring')).toEqual([]);
    expect(await hits('narwhalshownlater')).toHaveLength(1);
    expect(await hits('alshownlat', 'substring')).toHaveLength(1);
    expect(await pendingRows(store.db)).toBe(0);
    expect(await integrityOk()).toBe(true);
    // Rows indexed at a COMMIT are edited through the ordinary triggers afterwards.
    await sql`update messages set content = 'edited after commit narwhaledited' where content = 'third text narwhallast'`.execute(
      store.db,
    );
    await sql`delete from messages where content = 'inserted hidden narwhalshownlater'`.execute(store.db);
    expect(await hits('narwhaledited')).toHaveLength(1);
    expect(await hits('narwhalshownlater')).toEqual([]);
    expect(await integrityOk()).toBe(true);
  });

  it('a message written by a statement of its own, or by the write worker, is searchable once the write resolves', async () => {
    const { store, path } = await open();
    await insertMessage(store.db, 'autocommitted platypusalone');
    expect(await hits('platypusalone')).toHaveLength(1);
    const worker = new SqliteWriteWorker(path, 5000);
    try {
      await worker.transaction((batch) =>
        batch([
          {
            sql: `insert into messages (session_id, role, content, timestamp) values ('s1', 'user', 'from the worker platypusworker', 0)`,
          },
        ]),
      );
    } finally {
      await worker.close();
    }
    expect(await hits('platypusworker')).toHaveLength(1);
    expect(await pendingRows(store.db)).toBe(0);
    expect(await integrityOk()).toBe(true);
  });

  it('a process killed inside its transaction leaves neither the message nor a pending row', async () => {
    const { store, path } = await open();
    await store.messages.append(admin, 's1', { messages: [{ role: 'user', content: 'before the crash echidnakept' }] });
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require(process.env.DRIVER);
         const db = new Database(process.env.DB);
         db.pragma('busy_timeout = 5000');
         db.prepare('begin immediate').run();
         db.prepare("insert into messages (session_id, role, content, timestamp) values ('s1', 'user', 'never committed echidnalost', 0)").run();
         console.log('pending ' + db.prepare('select count(*) as n from messages_search_pending').get().n);
         setInterval(() => {}, 1000);`,
      ],
      { env: { ...process.env, DRIVER: driver, DB: path }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (data: Buffer) => resolve(String(data).trim()));
      child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    // The child's transaction had recorded its message as pending when it died.
    expect(line).toBe('pending 1');
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(await pendingRows(store.db)).toBe(0);
    expect(await hits('echidnalost')).toEqual([]);
    // The store writes on (the dead process's lock went with it).
    await store.messages.append(admin, 's1', { messages: [{ role: 'user', content: 'after the crash echidnanext' }] });
    expect(await hits('echidnakept')).toHaveLength(1);
    expect(await hits('echidnanext')).toHaveLength(1);
    expect(await pendingRows(store.db)).toBe(0);
    expect(await integrityOk()).toBe(true);
  });

  it('the integrity check run inside an open group counts the group’s pending rows as indexed', async () => {
    const { store, groups } = await open();
    const [, checked] = await Promise.all([
      store.messages.append(admin, 's1', { messages: [{ role: 'user', content: 'pending while checked dingoword' }] }),
      store.db.transaction().execute(async (trx) => {
        await insertMessage(trx, 'pending in this very transaction dingoother');
        return new SqliteSearchIndex().check(trx);
      }),
    ]);
    expect(groups.at(-1)).toBe(2);
    expect(checked.map((index) => [index.name, index.ok])).toEqual([
      ['word', true],
      ['substring', true],
    ]);
    expect(await hits('dingoword')).toHaveLength(1);
    expect(await hits('dingoother')).toHaveLength(1);
    expect(await integrityOk()).toBe(true);
  });

  it('a pending row committed by a writer that did not index it is indexed once: by the next COMMIT, or by a rebuild', async () => {
    const { store, path } = await open();
    // Another program on the file (no flush before its COMMIT): its messages stay pending.
    const foreign = new Database(path);
    const insertForeign = foreign.prepare(
      `insert into messages (session_id, role, content, timestamp) values ('s1', 'user', ?, 0)`,
    );
    try {
      insertForeign.run('written elsewhere koalafirst');
      expect(await pendingRows(store.db)).toBe(1);
      // The store's next COMMIT indexes whatever is pending, its own or not.
      await store.messages.append(admin, 's1', { messages: [{ role: 'user', content: 'next append koalanext' }] });
      expect(await pendingRows(store.db)).toBe(0);
      insertForeign.run('written elsewhere koalasecond');
    } finally {
      foreign.close();
    }
    // A rebuild indexes every message itself: the pending one must not be indexed a second time.
    await new SqliteSearchIndex().rebuild(store.db, { between: async () => undefined });
    for (const word of ['koalafirst', 'koalanext', 'koalasecond']) expect(await hits(word)).toHaveLength(1);
    expect(await hits('oalaseco', 'substring')).toHaveLength(1);
    expect(await pendingRows(store.db)).toBe(0);
    expect(await integrityOk()).toBe(true);
  });
});

/**
 * A COMMIT soon after this writer's last index flush leaves its rows pending, committed (the
 * search-index lag, docs/search.md): one flush then indexes the commits of the lag together, in a
 * transaction of its own when the lag is up, or before a search, or at close. No answered append
 * may ever be missing from a search.
 */
describe('the search-index lag (SQLite)', () => {
  const append = (store: TestStore['store'], content: string) =>
    store.messages.append(admin, 's1', { messages: [{ role: 'user', content }] });

  it('appends soon after an index flush stay pending; a search indexes them first, in one segment per index, and finds every one', async () => {
    // A lag no test outlasts: only the search can index the rows.
    // The session's creation was this writer's first COMMIT: it flushed, and the lag began.
    const { store } = await open(3_600_000);
    const before = await Promise.all(TABLES.map((table) => segments(store.db, table)));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(String((await append(store, `one commit each emuword${i}`)).ids[0]));
    expect(await pendingRows(store.db)).toBe(5);
    expect(await Promise.all(TABLES.map((table) => segments(store.db, table)))).toEqual(before);
    for (let i = 0; i < 5; i++) expect(await hits(`emuword${i}`)).toEqual([ids[i]]);
    expect(await pendingRows(store.db)).toBe(0);
    const after = await Promise.all(TABLES.map((table) => segments(store.db, table)));
    expect(after.map((n, i) => n - before[i])).toEqual([1, 1]);
    expect(await hits('muwor', 'substring')).toHaveLength(5);
    expect(await integrityOk()).toBe(true);
  });

  it('without a search, the rows are indexed once the lag is up, in a transaction of their own', async () => {
    const { store } = await open(150);
    await append(store, 'left pending dodolater');
    expect(await pendingRows(store.db)).toBe(1);
    await vi.waitFor(async () => expect(await pendingRows(store.db)).toBe(0), { timeout: 10_000, interval: 25 });
    const { rows } = await sql<{ id: number }>`
      select rowid as id from messages_fts where messages_fts match 'dodolater'`.execute(store.db);
    expect(rows).toHaveLength(1);
    expect(await integrityOk()).toBe(true);
  });

  it('a store closed with rows pending indexes them before it closes', async () => {
    const { store, path } = await open(3_600_000);
    await append(store, 'pending until the close ibissecond');
    expect(await pendingRows(store.db)).toBe(1);
    await store.close();
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.prepare('select count(*) as n from messages_search_pending').get()).toEqual({ n: 0 });
      expect(raw.prepare(`select count(*) as n from messages_fts where messages_fts match 'ibissecond'`).get()).toEqual(
        {
          n: 1,
        },
      );
      expect(raw.prepare(`select count(*) as n from messages_trgm where messages_trgm match 'bissec'`).get()).toEqual({
        n: 1,
      });
    } finally {
      raw.close();
    }
  });

  it('a search finds rows another program (or a killed process) left pending, with no COMMIT of the store in between', async () => {
    const { store, path } = await open(3_600_000);
    const foreign = new Database(path);
    try {
      foreign
        .prepare(`insert into messages (session_id, role, content, timestamp) values ('s1', 'user', ?, 0)`)
        .run('left pending by a process that died tapirlost');
    } finally {
      foreign.close();
    }
    expect(await pendingRows(store.db)).toBe(1);
    expect(await hits('tapirlost')).toHaveLength(1);
    expect(await hits('apirlo', 'substring')).toHaveLength(1);
    expect(await pendingRows(store.db)).toBe(0);
    expect(await integrityOk()).toBe(true);
  });
});
