import type { Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.js';
import { startWorker } from '../shared/worker-program.js';
import type { CheckpointerWorkerData, FromCheckpointer } from './sqlite-checkpointer.worker.js';

export const CHECKPOINT_INTERVAL_MS = 200;
/** A failure that keeps repeating is logged again at most this often. */
const REPEAT_LOG_MS = 60_000;

export interface CheckpointerStatus {
  /** Checkpoint rounds that failed (not counting SQLITE_BUSY), since this process opened the store. */
  failures: number;
  /** Rounds skipped because another connection held the lock (expected; counted only). */
  busy: number;
  /** Times this process emptied a WAL file that had grown past the limit. */
  truncations: number;
  /** True while the latest round failed (or the worker could not start or died). */
  failing: boolean;
  lastError: string | null;
  lastErrorAt: number | null;
}

/**
 * WAL checkpoints on a worker thread. By default SQLite checkpoints inside the COMMIT that pushes
 * the WAL past 1 000 pages: that commit then copies megabytes back into the database file on the
 * event loop of whichever process made it (the tens-of-milliseconds spikes of an append, and of a
 * chunk of long work). The writer connections turn that off (`wal_autocheckpoint = 0`) and this
 * worker runs a PASSIVE checkpoint every few hundred milliseconds on its own connection instead:
 * it never waits for or blocks a reader or a writer, and when it has copied everything the next
 * writer starts the WAL over from its beginning. Every process sharing the file runs one; two at
 * once simply take turns.
 *
 * The writers never truncate the WAL file (no `journal_size_limit`: SQLite would cut it inside the
 * first COMMIT after a complete checkpoint, on the event loop). So a WAL that a bulk write grew past
 * `walSizeLimit` is emptied here: once a PASSIVE round has copied every frame, one TRUNCATE round
 * (never waiting: it gives up at once while a writer holds the lock or a reader an older
 * snapshot) resets the log and truncates the file on this thread. Writers of this or another
 * process wait for it on their timers meanwhile, as for any other writer.
 *
 * Failures are not silent: with checkpoints off in the writers, a checkpointer that keeps failing
 * lets the WAL grow without bound. The worker reports each failure (SQLITE_BUSY — another process
 * checkpointing — only counted); this side logs them (the first, a change of error, then at most
 * once a minute, and the recovery) and counts them for /metrics. The thread's program is
 * db/sqlite-checkpointer.worker.ts.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly state: CheckpointerStatus = {
    failures: 0,
    busy: 0,
    truncations: 0,
    failing: false,
    lastError: null,
    lastErrorAt: null,
  };
  private lastLoggedAt = 0;
  private closing = false;
  private workerStopped = false;

  constructor(
    private readonly path: string,
    intervalMs = CHECKPOINT_INTERVAL_MS,
    private readonly logger?: Logger,
    /** A WAL file larger than this is emptied once checkpointed (-1: never). */
    walSizeLimit = -1,
  ) {
    const workerData: CheckpointerWorkerData = { path, intervalMs, walSizeLimit };
    this.worker = startWorker(import.meta.url, 'sqlite-checkpointer.worker', { workerData });
    this.worker.unref();
    this.worker.on('message', (message: FromCheckpointer) => {
      if (message.type === 'busy') this.state.busy++;
      else if (message.type === 'truncated') this.state.truncations++;
      else if (message.type === 'ok') this.recovered();
      else if (message.type === 'failed') this.failed(`${message.code ? `${message.code}: ` : ''}${message.message}`);
    });
    // A worker that cannot open the file leaves checkpoints to the last connection's close — said aloud.
    // A worker that throws emits 'error' and then 'exit' (code 1): one stop, said once, with its reason.
    this.worker.on('error', (error) => this.stopped(`checkpoint worker stopped: ${error.message}`));
    this.worker.on('exit', (code) => {
      if (!this.closing && code !== 0) this.stopped(`checkpoint worker exited with code ${code}`);
    });
  }

  status(): CheckpointerStatus {
    return { ...this.state };
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.worker.terminate().catch(() => undefined);
  }

  private stopped(error: string): void {
    if (this.workerStopped) return;
    this.workerStopped = true;
    this.failed(error, true);
  }

  private failed(error: string, fatal = false): void {
    const now = Date.now();
    const changed = error !== this.state.lastError || !this.state.failing;
    this.state.failures++;
    this.state.failing = true;
    this.state.lastError = error;
    this.state.lastErrorAt = now;
    if (fatal || changed || now - this.lastLoggedAt >= REPEAT_LOG_MS) {
      this.lastLoggedAt = now;
      this.logger?.error(
        fatal
          ? 'SQLite WAL checkpoints stopped in this process; the WAL grows until the store is closed'
          : 'SQLite WAL checkpoint failed',
        { path: this.path, error, failures: this.state.failures },
      );
    }
  }

  private recovered(): void {
    if (!this.state.failing) return;
    this.state.failing = false;
    this.logger?.info('SQLite WAL checkpoints succeed again', { path: this.path, failures: this.state.failures });
  }
}
