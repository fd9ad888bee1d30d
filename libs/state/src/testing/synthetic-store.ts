import Database from 'better-sqlite3';
import { flushSearchPending } from '../db/sqlite-search-pending.js';
import { silentLogger } from '../shared/logger.js';
import { openStore } from '../store.js';
import { seededRandom } from './seeded-random.js';

const WORDS = [
  'deploy',
  'migration',
  'schema',
  'tokenizer',
  'latency',
  'replica',
  'gateway',
  'session',
  'receipt',
  'walrus',
  'compress',
  'lineage',
  'retention',
  'cursor',
  'backup',
  'vacuum',
];

/**
 * A SQLite store with `messages` messages over sessions of `perSession`, written straight into the
 * file (multi-row inserts, search triggers on) after the store's own migrations made it: a large
 * store in seconds, consistent with what the API would have written. Each transaction indexes its
 * messages before it commits, as the store's writers do (the insert trigger only records them as
 * pending): the search indexes hold them in the segments those transactions wrote, and nothing is
 * left pending for the first write of an API process to index in one go.
 */
export async function syntheticSqliteStore(
  path: string,
  messages: number,
  perSession = 500,
  options: { seed?: number; profile?: string; endedAt?: number } = {},
): Promise<void> {
  const seed = options.seed ?? 7;
  const profile = options.profile ?? 'bulk';
  const store = await openStore({ url: `file:${path}`, logger: silentLogger });
  await store.close();
  const random = seededRandom(seed);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  try {
    const now = options.endedAt !== undefined ? options.endedAt - 86_400_000 : Date.UTC(2026, 10, 1);
    const sessions = Math.ceil(messages / perSession);
    db.prepare(`insert into profiles (name, created_at) values (?, ?) on conflict do nothing`).run(profile, now);
    const insertSession = db.prepare(
      `insert into sessions (id, profile, source, created_source, started_at, last_activity_at, message_count, ended_at, end_reason)
       values (?, ?, 'cli', 'cli', ?, ?, ?, ?, ?)`,
    );
    const BATCH = 100;
    const row = `(?, ?, ?, ?, 'visible', 1)`;
    const insertMessages = db.prepare(
      `insert into messages (session_id, role, content, timestamp, display_kind, substring_indexed) values ${Array(
        BATCH,
      )
        .fill(row)
        .join(', ')}`,
    );
    const load = db.transaction((first: number, last: number) => {
      for (let s = first; s < last; s++) {
        const id = `${profile}-${String(s).padStart(6, '0')}`;
        const count = Math.min(perSession, messages - s * perSession);
        const ended = options.endedAt ?? null;
        insertSession.run(id, profile, now + s, now + s, count, ended, ended === null ? null : 'cli_close');
        for (let from = 0; from < count; from += BATCH) {
          const values: unknown[] = [];
          for (let i = 0; i < BATCH; i++) {
            const words = Array.from({ length: 12 }, () => WORDS[Math.floor(random() * WORDS.length)]);
            values.push(id, i % 2 === 0 ? 'user' : 'assistant', `${words.join(' ')} ${s}-${from + i}`, now + from + i);
          }
          if (from + BATCH <= count) insertMessages.run(values);
          else {
            const single = db.prepare(
              `insert into messages (session_id, role, content, timestamp, display_kind, substring_indexed) values ${row}`,
            );
            for (let i = 0; from + i < count; i++) single.run(values.slice(i * 4, i * 4 + 4));
          }
        }
      }
      flushSearchPending((text) => db.prepare(text));
    });
    for (let s = 0; s < sessions; s += 20) load(s, Math.min(sessions, s + 20));
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
