import type { Executor } from './database.js';

/** What a wake-up is about. Listeners re-read the store: a wake-up carries no data and may repeat. */
export type WakeupTopic = 'receipts' | 'jobs' | 'messages';

export type Unsubscribe = () => void;

/**
 * Cross-process wake-ups, one small port: PostgreSQL LISTEN/NOTIFY, or a cheap change probe on a
 * SQLite file. Delivery is best effort and may coalesce or repeat; every listener also polls on
 * its own timer, so a lost wake-up costs latency, never correctness.
 */
export interface Wakeups {
  /**
   * Inside a transaction: every process hears `topic` once it commits (nothing on rollback).
   * PostgreSQL: `pg_notify` (delivered at commit); SQLite: nothing to do — the commit itself
   * changes the file's data_version, which the probes see.
   */
  announceIn(db: Executor, topic: WakeupTopic): Promise<void>;
  /** After a commit in this process: its own listeners wake at once. */
  local(topic: WakeupTopic): void;
  subscribe(topic: WakeupTopic, listener: () => void): Unsubscribe;
  /** True while wake-ups from other processes are being delivered (LISTEN connected, probe running). */
  readonly live: boolean;
  close(): Promise<void>;
}
