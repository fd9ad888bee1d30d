import type { IndexIntegrity } from '@statehouse/contracts';
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import type { RebuildChunks, SearchIndexPort } from './search-index.port.js';

const INDEXES = [
  {
    name: 'word' as const,
    index: 'messages_search_vector_idx',
    rows: `display_kind <> 'hidden' and (active = 1 or compacted = 1)`,
  },
  {
    name: 'substring' as const,
    index: 'messages_content_trgm_idx',
    rows: `substring_indexed = 1 and display_kind <> 'hidden' and (active = 1 or compacted = 1)`,
  },
];

/**
 * On PostgreSQL the word vector is a stored generated column and both indexes are maintained by the
 * server, so integrity means "the index exists and is valid"; a rebuild is REINDEX CONCURRENTLY,
 * which keeps reads and writes going.
 */
export class PostgresSearchIndex implements SearchIndexPort {
  async check(db: Executor): Promise<IndexIntegrity['indexes']> {
    const results: IndexIntegrity['indexes'] = [];
    for (const index of INDEXES) {
      const { rows } = await sql<{ valid: boolean | null; expected_rows: number }>`
        select
          (select i.indisvalid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${index.index}) as valid,
          (select count(*) from messages where ${sql.raw(index.rows)}) as expected_rows`.execute(db);
      const ok = rows[0].valid === true;
      results.push({ name: index.name, ok, expectedRows: Number(rows[0].expected_rows), mismatchedTerms: ok ? 0 : -1 });
    }
    return results;
  }

  async rebuild(db: Db, chunks: RebuildChunks): Promise<void> {
    // CONCURRENTLY cannot run inside a transaction block: run on the pool, one statement each.
    // It takes no lock that stops reads or writes, so there is nothing to chunk; the old index
    // answers searches until the new one replaces it.
    for (const index of INDEXES) {
      const started = performance.now();
      await sql.raw(`reindex index concurrently ${index.index}`).execute(db);
      await chunks.between(performance.now() - started);
    }
  }

  async inProgress(): Promise<boolean> {
    return false;
  }

  async usable(db: Executor): Promise<boolean> {
    const results = await this.check(db);
    return results.every((result) => result.ok);
  }
}
