import { flushSearchPending, openStore, silentLogger } from '@statehouse/state';
import Database from 'better-sqlite3';
import { MessageFactory } from './data.js';
import { ADMIN_CTX } from './stores.js';

/**
 * A store file for the search-index probes: migrated by the store itself, `sessions` sessions
 * (`probe-0` …), then `messages` plain messages spread over them, written by raw better-sqlite3 in
 * one transaction, indexed as a COMMIT of the store would and optimized to one segment per index.
 * The factory goes on generating texts for the probe's own appends.
 */
export async function seedSearchFile(
  path: string,
  options: { sessions: number; messages: number },
): Promise<{ sessionIds: string[]; factory: MessageFactory }> {
  const store = await openStore({ url: `file:${path}`, logger: silentLogger });
  const sessionIds: string[] = [];
  for (let i = 0; i < options.sessions; i++) {
    const id = `probe-${i}`;
    await store.sessions.create(ADMIN_CTX, { id, profile: 'default', source: 'cli' });
    sessionIds.push(id);
  }
  await store.close();

  const factory = new MessageFactory(7);
  const raw = new Database(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  try {
    const insert = raw.prepare(
      `insert into messages (session_id, role, content, timestamp, display_kind, substring_indexed)
       values (?, ?, ?, ?, 'visible', 1)`,
    );
    raw.transaction(() => {
      for (let i = 0; i < options.messages; i++) {
        const role = i % 2 ? 'assistant' : 'user';
        insert.run(sessionIds[i % sessionIds.length], role, factory.text(), Date.now());
      }
      // The schema's insert trigger left the rows pending: index them, as a store's COMMIT would.
      flushSearchPending((text) => raw.prepare(text));
    })();
    for (const table of ['messages_fts', 'messages_trgm']) {
      raw.exec(`insert into ${table}(${table}) values ('optimize')`);
    }
  } finally {
    raw.close();
  }
  return { sessionIds, factory };
}
