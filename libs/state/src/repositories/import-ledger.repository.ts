import type { Insertable, Selectable } from 'kysely';
import type { Executor, ImportMessagesTable, ImportSessionsTable } from '../db/database.js';
import { chunk } from '../db/sql-dialect.js';

export type ImportSessionRow = Selectable<ImportSessionsTable>;
export type ImportMessageRow = Selectable<ImportMessagesTable>;

/** 6 columns per row. */
const MESSAGE_CHUNK = 500;

/**
 * The import ledger: which source session and message became which row here, with fingerprints,
 * so a repeated, resumed or incremental import does exactly what is missing and nothing else.
 */
export class ImportLedgerRepository {
  async sessionsBySourceIds(
    db: Executor,
    source: string,
    sourceIds: readonly string[],
  ): Promise<Map<string, ImportSessionRow>> {
    const found = new Map<string, ImportSessionRow>();
    for (const part of chunk([...new Set(sourceIds)])) {
      const rows = await db
        .selectFrom('import_sessions')
        .selectAll()
        .where('source', '=', source)
        .where('source_session_id', 'in', part)
        .execute();
      for (const row of rows) found.set(row.source_session_id, row);
    }
    return found;
  }

  async upsertSession(db: Executor, row: Insertable<ImportSessionsTable>): Promise<void> {
    await db
      .insertInto('import_sessions')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['source', 'source_session_id']).doUpdateSet({
          session_id: row.session_id,
          identity: row.identity,
          snapshot: row.snapshot,
          messages_hash: row.messages_hash,
          state: row.state,
          job_id: row.job_id,
          imported_at: row.imported_at,
        }),
      )
      .execute();
  }

  /**
   * The session was deleted here (or moved out of its profile): keep a tombstone — the id, no
   * snapshot, no fingerprint of its content — so a re-import leaves it deleted.
   */
  async markDeleted(db: Executor, sessionIds: readonly string[]): Promise<void> {
    for (const part of chunk(sessionIds)) {
      await db
        .updateTable('import_sessions')
        .set({ state: 'deleted', snapshot: null, messages_hash: null })
        .where('session_id', 'in', part)
        .execute();
    }
  }

  async countForSessions(db: Executor, sessionIds: readonly string[]): Promise<number> {
    let total = 0;
    for (const part of chunk(sessionIds)) {
      const row = await db
        .selectFrom('import_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('session_id', 'in', part)
        .where('state', '=', 'imported')
        .executeTakeFirstOrThrow();
      total += Number(row.n);
    }
    return total;
  }

  /**
   * A session's message entries by source id. With `pages`, read a page at a time on the primary
   * key with `pages.between` awaited after each (10⁵ entries outside any transaction: one query
   * held the event loop 0.5–1.4 s); the caller checks later that they still hold.
   */
  async messagesOf(
    db: Executor,
    sessionId: string,
    pages?: { size: number; between: () => Promise<void> },
  ): Promise<Map<number, ImportMessageRow>> {
    if (!pages) {
      const rows = await db.selectFrom('import_messages').selectAll().where('session_id', '=', sessionId).execute();
      return new Map(rows.map((row) => [Number(row.source_message_id), row]));
    }
    const entries = new Map<number, ImportMessageRow>();
    for (let after: number | null = null; ; ) {
      let query = db.selectFrom('import_messages').selectAll().where('session_id', '=', sessionId);
      if (after !== null) query = query.where('source_message_id', '>', after);
      const rows = await query.orderBy('source_message_id').limit(pages.size).execute();
      for (const row of rows) entries.set(Number(row.source_message_id), row);
      await pages.between();
      if (rows.length < pages.size) return entries;
      after = Number(rows[rows.length - 1].source_message_id);
    }
  }

  /**
   * The lowest and highest source id among a session's message entries (null: none), two lookups
   * on the primary key: whether entries read earlier still hold (`HermesWriter.compareLedger`).
   */
  async messageSpan(db: Executor, sessionId: string): Promise<{ lowest: number | null; highest: number | null }> {
    const end = async (direction: 'asc' | 'desc') => {
      const row = await db
        .selectFrom('import_messages')
        .select('source_message_id')
        .where('session_id', '=', sessionId)
        .orderBy('source_message_id', direction)
        .limit(1)
        .executeTakeFirst();
      return row === undefined ? null : Number(row.source_message_id);
    };
    return { lowest: await end('asc'), highest: await end('desc') };
  }

  async insertMessages(db: Executor, rows: readonly Insertable<ImportMessagesTable>[]): Promise<void> {
    for (const part of chunk(rows, MESSAGE_CHUNK)) await db.insertInto('import_messages').values(part).execute();
  }

  async setMessageVisibility(
    db: Executor,
    sessionId: string,
    sourceIds: readonly number[],
    visibility: { active: 0 | 1; compacted: 0 | 1 },
  ): Promise<void> {
    for (const part of chunk(sourceIds)) {
      await db
        .updateTable('import_messages')
        .set(visibility)
        .where('session_id', '=', sessionId)
        .where('source_message_id', 'in', part)
        .execute();
    }
  }

  /** Up to `limit` of a session's message entries, the latest first; returns how many went. */
  async deleteSomeMessagesOf(db: Executor, sessionId: string, limit: number): Promise<number> {
    const result = await db
      .deleteFrom('import_messages')
      .where('session_id', '=', sessionId)
      .where('source_message_id', 'in', (eb) =>
        eb
          .selectFrom('import_messages')
          .select('source_message_id')
          .where('session_id', '=', sessionId)
          .orderBy('source_message_id', 'desc')
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deleteMessagesOf(db: Executor, sessionId: string): Promise<void> {
    await db.deleteFrom('import_messages').where('session_id', '=', sessionId).execute();
  }
}
