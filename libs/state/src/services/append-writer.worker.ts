import { parentPort, workerData } from 'node:worker_threads';
import { connectSqliteWriter } from '../db/connect.js';
import { sqlDialect } from '../db/sql-dialect.js';
import { UnitOfWork } from '../db/unit-of-work.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { transferError } from '../shared/error-transfer.js';
import type { Logger } from '../shared/logger.js';
import type { AppendReply, AppendWorkerData, FromAppendWorker, ToAppendWorker } from './append-writer.js';
import { MessageService } from './message.service.js';

/**
 * The append writer's thread (services/append-writer.ts): a write connection of its own and the
 * same MessageService the event loop would run, with group commit on that connection. It answers
 * each batch's appends once their group has committed.
 */
const port = parentPort!;
const data = workerData as AppendWorkerData;

/** The store's clock when it is not the system clock: the time each batch was sent at. */
let sentAt = Date.now();
const clock: Clock = data.systemClock ? systemClock : { now: () => sentAt };

const post = (message: FromAppendWorker) => port.postMessage(JSON.stringify(message));
const logger: Logger = {
  info: (message, context) => post({ log: { level: 'info', message, context } }),
  warn: (message, context) => post({ log: { level: 'warn', message, context } }),
  error: (message, context) => post({ log: { level: 'error', message, context } }),
};

let replies: AppendReply[] = [];
let locks: number[] = [];
let queries: (string | number | boolean)[] = [];

const connection = connectSqliteWriter(data.path, {
  lockTimeoutMs: data.lockTimeoutMs,
  groupCommit: data.groupCommit,
  onWriteLock: data.observeLocks ? (heldMs, requests) => void locks.push(heldMs, requests) : undefined,
  onQuery: data.observeQueries
    ? (operation, durationMs, failed) => void queries.push(operation, durationMs, failed)
    : undefined,
});
const messages = new MessageService(
  connection.db,
  new UnitOfWork(connection.db, 'sqlite', clock, logger),
  clock,
  sqlDialect('sqlite'),
  connection.db,
  // Revivals are announced after commit; the observers are the event loop's.
  { dispatchSessionReopened: (event) => post({ reopened: event }) },
);

/**
 * The answers of one group resolve together, after its COMMIT, in one cascade of promise jobs: a
 * tick after the first, every answer of the cascade is there, and they go in one message.
 */
function answer(reply: AppendReply): void {
  if (replies.length === 0) process.nextTick(flush);
  replies.push(reply);
}
function flush(): void {
  post({ replies, locks, queries });
  replies = [];
  locks = [];
  queries = [];
}

port.on('message', (text: string) => {
  const message = JSON.parse(text) as ToAppendWorker;
  if ('close' in message) {
    void connection.close().finally(() => {
      post({ closed: true });
      port.close();
    });
    return;
  }
  if (message.now !== undefined) sentAt = message.now;
  for (const job of message.jobs) {
    messages.append(job.ctx, job.sessionId, job.command, job.preconditions).then(
      (value) => answer({ id: job.id, value, recorded: job.ctx.idempotency?.recorded === true }),
      (error) => answer({ id: job.id, error: transferError(error) }),
    );
  }
});
post({ ready: true });
