import type { BackupRecord } from '@statehouse/contracts';
import type { BackupsTable, Executor } from '../db/database.js';
import { toIso, toIsoOrNull } from '../shared/clock.js';

export type BackupCounts = { sessions: number; messages: number; receipts: number };

/** Backup attempts, recorded in the store so every replica reports the same. */
export class BackupRepository {
  async start(db: Executor, row: Pick<BackupsTable, 'id' | 'trigger' | 'dialect' | 'path' | 'holder' | 'started_at'>) {
    await db
      .insertInto('backups')
      .values({ ...row, status: 'running', finished_at: null, bytes: null, counts: null, error: null })
      .execute();
  }

  async succeed(db: Executor, id: string, finishedAt: number, bytes: number, counts: BackupCounts): Promise<void> {
    await db
      .updateTable('backups')
      .set({ status: 'succeeded', finished_at: finishedAt, bytes, counts: JSON.stringify(counts) })
      .where('id', '=', id)
      .execute();
  }

  async fail(db: Executor, id: string, finishedAt: number, error: string): Promise<void> {
    await db
      .updateTable('backups')
      .set({ status: 'failed', finished_at: finishedAt, error: error.slice(0, 2000) })
      .where('id', '=', id)
      .execute();
  }

  async find(db: Executor, id: string): Promise<BackupRecord | null> {
    const row = await db.selectFrom('backups').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async recent(db: Executor, limit: number): Promise<BackupRecord[]> {
    const rows = await db.selectFrom('backups').selectAll().orderBy('started_at', 'desc').limit(limit).execute();
    return rows.map(toRecord);
  }

  async lastSucceeded(db: Executor): Promise<BackupRecord | null> {
    const row = await db
      .selectFrom('backups')
      .selectAll()
      .where('status', '=', 'succeeded')
      .orderBy('started_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** What the live store holds (PostgreSQL: pg_dump's snapshot is not counted separately). */
  async liveCounts(db: Executor): Promise<BackupCounts> {
    const count = async (table: 'sessions' | 'messages' | 'deletion_receipts') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      sessions: await count('sessions'),
      messages: await count('messages'),
      receipts: await count('deletion_receipts'),
    };
  }
}

function toRecord(row: BackupsTable): BackupRecord {
  return {
    id: row.id,
    trigger: row.trigger as BackupRecord['trigger'],
    status: row.status as BackupRecord['status'],
    dialect: row.dialect as BackupRecord['dialect'],
    path: row.path,
    holder: row.holder,
    startedAt: toIso(Number(row.started_at)),
    finishedAt: toIsoOrNull(row.finished_at === null ? null : Number(row.finished_at)),
    bytes: row.bytes === null ? null : Number(row.bytes),
    counts: row.counts === null ? null : (JSON.parse(row.counts) as BackupCounts),
    error: row.error,
  };
}
