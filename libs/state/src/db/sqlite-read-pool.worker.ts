import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What the read pool gives each of its threads (db/sqlite-read-pool.ts). */
export interface ReadWorkerData {
  path: string;
  busyTimeoutMs: number;
  /** Answers go on their own port, which the main thread can also read synchronously (receiveMessageOnPort). */
  replies: MessagePort;
}

/** One read. */
export interface ReadJob {
  id: number;
  sql: string;
  parameters: readonly unknown[];
  /** Epoch ms. */
  deadlineAt: number;
}

export type ReadReply = { id?: number; rows?: unknown[]; error?: { message: string; code?: string } };

/**
 * A read pool's thread (db/sqlite-read-pool.ts): its own read-only connection. Rows are stepped one
 * at a time and the deadline is checked as they come, so a long scan that produces rows stops by
 * itself; a statement stuck inside SQLite (a big aggregate) cannot be interrupted that way — the
 * main thread abandons the whole worker instead.
 */
const data = workerData as ReadWorkerData;
const replies = data.replies;
const db = new Database(data.path, { fileMustExist: true });
db.pragma('query_only = 1');
db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
const statements = new Map<string, Database.Statement>();
function prepare(sql: string): Database.Statement {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    if (statements.size >= 200) statements.delete(statements.keys().next().value!);
    statements.set(sql, statement);
  }
  return statement;
}
const failure = (message: string, code: string) => Object.assign(new Error(message), { code });
parentPort!.on('message', (job: ReadJob) => {
  try {
    // A read that waited in the queue until its deadline does not start.
    if (Date.now() >= job.deadlineAt) throw failure('deadline exceeded', 'STATEHOUSE_DEADLINE');
    const statement = prepare(job.sql);
    if (!statement.reader) throw failure('the read pool runs read-only statements', 'SQLITE_READONLY');
    const rows: unknown[] = [];
    let n = 0;
    for (const row of statement.iterate(job.parameters)) {
      rows.push(row);
      if ((++n & 63) === 0 && Date.now() > job.deadlineAt) throw failure('deadline exceeded', 'STATEHOUSE_DEADLINE');
    }
    replies.postMessage({ id: job.id, rows } satisfies ReadReply);
  } catch (error) {
    const { message, code } = (error ?? {}) as { message?: unknown; code?: string };
    replies.postMessage({ id: job.id, error: { message: String(message), code } } satisfies ReadReply);
  }
});
