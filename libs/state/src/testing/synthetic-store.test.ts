import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SEARCH_PENDING_TABLE } from '../db/sqlite-search-pending.js';
import { syntheticSqliteStore } from './synthetic-store.js';

describe('syntheticSqliteStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-synthetic-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves its messages in both search indexes, none pending (as a store writer commits them)', async () => {
    const path = join(dir, 'synthetic.db');
    // 3 000 messages in sessions of 100: two transactions of 20 sessions (one segment each per index).
    await syntheticSqliteStore(path, 3000, 100);
    const db = new Database(path, { readonly: true });
    try {
      const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
      expect(count('select count(*) as n from messages')).toBe(3000);
      expect(count(`select count(*) as n from ${SEARCH_PENDING_TABLE}`)).toBe(0);
      const withWord = count(`select count(*) as n from messages where content like '%walrus%'`);
      expect(withWord).toBeGreaterThan(0);
      expect(count(`select count(*) as n from messages_fts where messages_fts match 'walrus'`)).toBe(withWord);
      expect(count(`select count(*) as n from messages_trgm where messages_trgm match 'alrus'`)).toBe(withWord);
    } finally {
      db.close();
    }
  });
});
