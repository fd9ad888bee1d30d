import type { Insertable, Selectable } from 'kysely';
import type { Executor, ImportJobsTable } from '../db/database.js';

export type ImportJobRow = Selectable<ImportJobsTable>;

/** Import runs: state, progress and report live in the store, so every replica answers the same. */
export class ImportJobRepository {
  async insert(db: Executor, row: Insertable<ImportJobsTable>): Promise<void> {
    await db.insertInto('import_jobs').values(row).execute();
  }

  async find(db: Executor, id: string): Promise<ImportJobRow | undefined> {
    return db.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Progress and counts so far (in the transaction of the batch they describe). */
  async saveProgress(
    db: Executor,
    id: string,
    values: { progress: string; report: string; conversations: string; updatedAt: number },
  ): Promise<void> {
    await db
      .updateTable('import_jobs')
      .set({
        progress: values.progress,
        report: values.report,
        conversations: values.conversations,
        updated_at: values.updatedAt,
      })
      .where('id', '=', id)
      .execute();
  }

  async finish(
    db: Executor,
    id: string,
    values: {
      state: string;
      progress: string;
      report: string;
      conversations: string;
      error: string | null;
      finishedAt: number;
    },
  ): Promise<void> {
    await db
      .updateTable('import_jobs')
      .set({
        state: values.state,
        progress: values.progress,
        report: values.report,
        conversations: values.conversations,
        error: values.error,
        finished_at: values.finishedAt,
        updated_at: values.finishedAt,
      })
      .where('id', '=', id)
      .execute();
  }

  /** Newest first, keyset on (created_at, id). */
  async list(db: Executor, after: { at: number; id: string } | undefined, limit: number): Promise<ImportJobRow[]> {
    let query = db.selectFrom('import_jobs').selectAll();
    if (after) {
      query = query.where((eb) =>
        eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]),
      );
    }
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** A run whose process is gone: recorded as interrupted (importing the file again resumes it). */
  async markInterrupted(db: Executor, id: string, at: number, error: string): Promise<void> {
    await db
      .updateTable('import_jobs')
      .set({ state: 'interrupted', error, finished_at: at, updated_at: at })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .execute();
  }
}
