import type BetterSqlite3 from 'better-sqlite3';
import { LocalWakeups } from './local-wakeups.js';
import type { WakeupTopic } from './wakeup.port.js';

/** How often the probe looks at the file while someone listens: well inside a 100 ms wake-up budget. */
export const SQLITE_PROBE_MS = 10;

/**
 * Processes sharing one SQLite file wake each other through `PRAGMA data_version`, read on this
 * process's own read connection every few milliseconds while anyone listens: it changes when any
 * other connection commits, costs microseconds and takes no lock. A change is narrowed per topic
 * by a version query (receipts: the chain's last sequence; messages: the last message id), so a stream of appends does not wake
 * every receipt watcher.
 */
export class SqliteWakeups extends LocalWakeups {
  private timer: NodeJS.Timeout | undefined;
  private dataVersion: number | undefined;
  private readonly versions = new Map<WakeupTopic, unknown>();
  private readonly versionStatement: Partial<Record<WakeupTopic, BetterSqlite3.Statement>>;
  private readonly dataVersionStatement: BetterSqlite3.Statement;

  constructor(
    private readonly reader: BetterSqlite3.Database,
    private readonly intervalMs = SQLITE_PROBE_MS,
  ) {
    super();
    this.dataVersionStatement = reader.prepare('pragma data_version').pluck();
    this.versionStatement = {
      receipts: reader.prepare(`select seq from sqlite_sequence where name = 'deletion_receipts'`).pluck(),
      // Message ids are AUTOINCREMENT: an append moves it, a session update alone does not.
      messages: reader.prepare(`select seq from sqlite_sequence where name = 'messages'`).pluck(),
    };
  }

  override get live(): boolean {
    return this.timer !== undefined;
  }

  protected override onSubscribersChanged(): void {
    const wanted = this.subscribers() > 0;
    if (wanted && !this.timer) {
      this.dataVersion = this.read(this.dataVersionStatement) as number | undefined;
      for (const topic of this.topics()) this.versions.set(topic, this.versionOf(topic));
      this.timer = setInterval(() => this.probe(), this.intervalMs);
      this.timer.unref();
    } else if (!wanted && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private probe(): void {
    if (!this.reader.open) return;
    const version = this.read(this.dataVersionStatement) as number | undefined;
    if (version === undefined || version === this.dataVersion) return;
    this.dataVersion = version;
    for (const topic of this.topics()) {
      const current = this.versionOf(topic);
      if (this.versionStatement[topic] && current === this.versions.get(topic)) continue;
      this.versions.set(topic, current);
      this.emitter.emit(topic);
    }
  }

  private versionOf(topic: WakeupTopic): unknown {
    const statement = this.versionStatement[topic];
    return statement ? this.read(statement) : undefined;
  }

  private read(statement: BetterSqlite3.Statement): unknown {
    try {
      return statement.get();
    } catch {
      // A busy moment (WAL recovery) or a table not created yet: look again at the next tick.
      return undefined;
    }
  }

  override async close(): Promise<void> {
    await super.close();
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
