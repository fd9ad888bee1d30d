import type { Executor } from '../../db/database.js';
import type { Tx } from '../../db/unit-of-work.js';
import {
  ImportLedgerRepository,
  type ImportMessageRow,
  type ImportSessionRow,
} from '../../repositories/import-ledger.repository.js';
import type { MappedMessage, MappedSession, SessionSnapshot } from './hermes-mapper.js';
import { HERMES_SOURCE, LEDGER_PAGE, noPause, PAGE, type WriteOptions } from './hermes-write-parts.js';

export interface MovedMessage {
  message: MappedMessage;
  messageId: number;
  was: { active: number; compacted: number };
}

/** The ledger's snapshot: the source's fields as last imported, plus the title as stored here. */
export type LedgerSnapshot = SessionSnapshot & { storedTitle: string | null };

/**
 * A session's ledger as read outside any transaction — its entry, and its message entries compared
 * with the source's messages. A session imported before with 10⁵ messages has 10⁵ message entries:
 * reading and comparing them inside the first unit of its update held the write lock ≈ 1 s.
 */
export interface KnownLedger {
  sessionId: string;
  entry: ImportSessionRow | undefined;
  comparison: LedgerComparison;
}

/** A session's message entries in the ledger, compared with its messages in the source. */
export interface LedgerComparison {
  /** Source messages without an entry (new since the last import), in source order. */
  fresh: MappedMessage[];
  /** Imported messages whose visibility the source moved. */
  moved: MovedMessage[];
  /** Imported messages whose content changed in the source. */
  changed: number;
  /** Every entry's message is still in the source, unchanged (a half-written session may resume). */
  intact: boolean;
  /** Source ids with an entry. */
  done: ReadonlySet<number>;
  /** The lowest and highest source id with an entry (null: none). */
  lowest: number | null;
  highest: number | null;
}

const normalizeCell = (value: unknown) =>
  typeof value === 'number' || typeof value === 'bigint' ? Number(value) : value;
export const same = (a: unknown, b: unknown) => normalizeCell(a) === normalizeCell(b);

/**
 * A ledger snapshot as saved by this or an earlier version: fields added since (the runtime state)
 * read as null — what those imports wrote into the columns — so a later import may set them.
 */
export function readLedgerSnapshot(text: string): LedgerSnapshot {
  return {
    toolNames: null,
    compressionRetryAfter: null,
    compressionRetryReason: null,
    ...(JSON.parse(text) as Partial<LedgerSnapshot>),
  } as LedgerSnapshot;
}

export function snapshotsEqual(a: SessionSnapshot, b: SessionSnapshot): boolean {
  for (const key of Object.keys(b) as (keyof SessionSnapshot)[]) if (!same(a[key], b[key])) return false;
  return true;
}

/** A session's message entries compared with its source messages (`LedgerComparison`). */
function compare(session: MappedSession, imported: ReadonlyMap<number, ImportMessageRow>): LedgerComparison {
  const comparison = new Comparison(imported);
  comparison.messages(session.messages);
  comparison.index(session.messages);
  comparison.entries([...imported]);
  return comparison.result();
}

/**
 * `compare`, with the event loop let run between pages of PAGE messages (or entries): what the
 * importer reads ahead of a session's first unit, outside every transaction (10⁵ messages took
 * one slice of 50–60 ms).
 */
async function compareInPages(
  session: MappedSession,
  imported: ReadonlyMap<number, ImportMessageRow>,
  between: () => Promise<void>,
): Promise<LedgerComparison> {
  const comparison = new Comparison(imported);
  for (let start = 0; start < session.messages.length; start += PAGE) {
    comparison.messages(session.messages.slice(start, start + PAGE));
    await between();
  }
  for (let start = 0; start < session.messages.length; start += PAGE) {
    comparison.index(session.messages.slice(start, start + PAGE));
    await between();
  }
  const entries = [...imported];
  for (let start = 0; start < entries.length; start += PAGE) {
    comparison.entries(entries.slice(start, start + PAGE));
    await between();
  }
  return comparison.result();
}

/** The steps of a ledger comparison, each over a part of its input in order. */
class Comparison {
  private readonly fresh: MappedMessage[] = [];
  private readonly moved: MovedMessage[] = [];
  private changed = 0;
  private readonly bySource = new Map<number, MappedMessage>();
  private intact = true;
  private lowest: number | null = null;
  private highest: number | null = null;

  constructor(private readonly imported: ReadonlyMap<number, ImportMessageRow>) {}

  /** Source messages against their entries: new, changed, or moved. */
  messages(messages: readonly MappedMessage[]): void {
    for (const message of messages) {
      const known = this.imported.get(message.sourceId);
      if (!known) this.fresh.push(message);
      else if (known.fingerprint !== message.fingerprint) this.changed++;
      else if (Number(known.active) !== message.active || Number(known.compacted) !== message.compacted) {
        this.moved.push({
          message,
          messageId: Number(known.message_id),
          was: { active: Number(known.active), compacted: Number(known.compacted) },
        });
      }
    }
  }

  index(messages: readonly MappedMessage[]): void {
    for (const message of messages) this.bySource.set(message.sourceId, message);
  }

  /** Entries against the source (after every message was indexed): is each still there, unchanged? */
  entries(entries: readonly [number, ImportMessageRow][]): void {
    for (const [sourceId, known] of entries) {
      const now = this.bySource.get(sourceId);
      if (!now || now.fingerprint !== known.fingerprint) this.intact = false;
      if (this.lowest === null || sourceId < this.lowest) this.lowest = sourceId;
      if (this.highest === null || sourceId > this.highest) this.highest = sourceId;
    }
  }

  result(): LedgerComparison {
    const { fresh, moved, changed, intact, lowest, highest } = this;
    return { fresh, moved, changed, intact, done: new Set(this.imported.keys()), lowest, highest };
  }
}

/** The same ledger entry, as last written (an import rewrites its time and job whenever it moves the session). */
function sameEntry(a: ImportSessionRow | undefined, b: ImportSessionRow | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.session_id === b.session_id &&
    a.identity === b.identity &&
    a.state === b.state &&
    a.snapshot === b.snapshot &&
    a.messages_hash === b.messages_hash &&
    same(a.imported_at, b.imported_at) &&
    a.job_id === b.job_id
  );
}

/**
 * Reads a session's import ledger and compares it with the source: ahead of the unit of work
 * (outside any transaction), or inside it when what was read ahead no longer holds.
 */
export class HermesLedgerComparer {
  private readonly ledger = new ImportLedgerRepository();

  /**
   * A session's ledger, read outside any transaction (on SQLite the reader connection, which never
   * waits on the writer and holds no lock): the importer reads it before the unit of work that
   * decides the session (`WriteOptions.knownLedger`).
   */
  async readLedgerAhead(
    db: Executor,
    session: MappedSession,
    between: () => Promise<void> = noPause,
  ): Promise<KnownLedger> {
    const entry = (await this.ledger.sessionsBySourceIds(db, HERMES_SOURCE, [session.sourceId])).get(session.sourceId);
    // A page at a time: entries that move meanwhile are caught where the comparison is used, as for
    // any read ahead.
    const imported = await this.ledger.messagesOf(db, session.id, { size: LEDGER_PAGE, between });
    return { sessionId: session.id, entry, comparison: await compareInPages(session, imported, between) };
  }

  /**
   * The session's message entries compared with the source: as read ahead when they still hold,
   * else read and compared here. They still hold when the session's entry is the one read ahead and
   * its message entries span the same source ids (two index lookups). Why that suffices: entries
   * come and go only through imports and deletions. An import that moves a session's messages
   * rewrites its entry (its time and job) in its last unit, and its middle units commit only while
   * it holds the import lease — which this unit checks before it commits (`persist`), so another
   * run's chunks cannot have slipped in unnoticed. A deletion marks the entry deleted, and its purge
   * removes the latest entries first (the highest source id moves). Anything else reads them again
   * inside, as before.
   */
  async compareLedger(
    tx: Tx,
    session: MappedSession,
    entry: ImportSessionRow | undefined,
    options: WriteOptions,
  ): Promise<LedgerComparison> {
    const known = options.knownLedger;
    if (known && known.sessionId === session.id && sameEntry(known.entry, entry)) {
      const span = await this.ledger.messageSpan(tx.db, session.id);
      if (span.lowest === known.comparison.lowest && span.highest === known.comparison.highest) return known.comparison;
    }
    return compare(session, await this.ledger.messagesOf(tx.db, session.id));
  }
}
