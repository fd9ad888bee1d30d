import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKGROUND_THREAD_NICE } from '../shared/background-thread.js';
import { threadNicesDuring } from '../testing/thread-nice.js';
import { copySqliteStore } from './sqlite-copy.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-copy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.platform === 'linux')('the online copy of a SQLite store', () => {
  // On 2 shared cores the copy's thread at the default priority kept both API processes'
  // event loops waiting for a core (docs/decisions/0022-background-threads-at-lower-priority.md).
  it('copies on a thread at the background priority', async () => {
    const source = join(dir, 'source.db');
    const db = new Database(source);
    db.pragma('journal_mode = WAL');
    db.exec('create table sessions (id integer primary key, body blob)');
    const insert = db.prepare('insert into sessions (body) values (?)');
    db.transaction(() => {
      for (let i = 0; i < 4000; i++) insert.run(Buffer.alloc(4000, i % 251));
    })();
    db.close();
    let copied: Awaited<ReturnType<typeof copySqliteStore>> | undefined;
    const nices = await threadNicesDuring(async () => {
      copied = await copySqliteStore(source, join(dir, 'copy.db'));
    });
    expect(copied).toMatchObject({ check: 'ok', counts: { sessions: 4000, messages: 0, receipts: 0 } });
    expect(nices.has(BACKGROUND_THREAD_NICE)).toBe(true);
  });
});
