import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor, SessionModelUsageTable } from '../db/database.js';
import { chunk } from '../db/sql-dialect.js';

export type SessionModelUsageRow = Selectable<SessionModelUsageTable>;
export type NewSessionModelUsageRow = Insertable<SessionModelUsageTable>;

/** 18 columns per row: 50 rows per statement stays under both dialects' parameter limits. */
const UPSERT_CHUNK = 50;

/**
 * Token and cost counters per (session, model, billing route, task). Rows go with their session
 * (foreign key, cascade), so every deletion path removes them in the deleting statement.
 */
export class SessionModelUsageRepository {
  /** Writes the counters as given (an import sets them to the source's totals). */
  async upsertMany(db: Executor, rows: readonly NewSessionModelUsageRow[]): Promise<void> {
    for (const part of chunk(rows, UPSERT_CHUNK)) {
      await db
        .insertInto('session_model_usage')
        .values(part)
        .onConflict((oc) =>
          oc
            .columns(['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode', 'task'])
            .doUpdateSet((eb) => ({
              api_call_count: eb.ref('excluded.api_call_count'),
              input_tokens: eb.ref('excluded.input_tokens'),
              output_tokens: eb.ref('excluded.output_tokens'),
              cache_read_tokens: eb.ref('excluded.cache_read_tokens'),
              cache_write_tokens: eb.ref('excluded.cache_write_tokens'),
              reasoning_tokens: eb.ref('excluded.reasoning_tokens'),
              estimated_cost_usd: eb.ref('excluded.estimated_cost_usd'),
              actual_cost_usd: eb.ref('excluded.actual_cost_usd'),
              cost_status: eb.ref('excluded.cost_status'),
              cost_source: eb.ref('excluded.cost_source'),
              first_seen: eb.ref('excluded.first_seen'),
              last_seen: eb.ref('excluded.last_seen'),
            })),
        )
        .execute();
    }
  }

  /** Adds one call's counters to its (model, billing route, task) row (docs/domain.md §2.2.17). */
  async addCall(db: Executor, row: NewSessionModelUsageRow): Promise<void> {
    await db
      .insertInto('session_model_usage')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode', 'task'])
          .doUpdateSet((eb) => ({
            api_call_count: eb('session_model_usage.api_call_count', '+', eb.ref('excluded.api_call_count')),
            input_tokens: eb('session_model_usage.input_tokens', '+', eb.ref('excluded.input_tokens')),
            output_tokens: eb('session_model_usage.output_tokens', '+', eb.ref('excluded.output_tokens')),
            cache_read_tokens: eb('session_model_usage.cache_read_tokens', '+', eb.ref('excluded.cache_read_tokens')),
            cache_write_tokens: eb(
              'session_model_usage.cache_write_tokens',
              '+',
              eb.ref('excluded.cache_write_tokens'),
            ),
            reasoning_tokens: eb('session_model_usage.reasoning_tokens', '+', eb.ref('excluded.reasoning_tokens')),
            estimated_cost_usd: eb(
              'session_model_usage.estimated_cost_usd',
              '+',
              eb.ref('excluded.estimated_cost_usd'),
            ),
            actual_cost_usd: sql<
              number | null
            >`case when excluded.actual_cost_usd is null then session_model_usage.actual_cost_usd else coalesce(session_model_usage.actual_cost_usd, 0) + excluded.actual_cost_usd end`,
            cost_status: eb.fn.coalesce('excluded.cost_status', 'session_model_usage.cost_status'),
            cost_source: eb.fn.coalesce('excluded.cost_source', 'session_model_usage.cost_source'),
            last_seen: eb.ref('excluded.last_seen'),
          })),
      )
      .execute();
  }

  async listForSessions(db: Executor, sessionIds: readonly string[]): Promise<SessionModelUsageRow[]> {
    const rows: SessionModelUsageRow[] = [];
    for (const part of chunk(sessionIds)) {
      rows.push(
        ...(await db
          .selectFrom('session_model_usage')
          .selectAll()
          .where('session_id', 'in', part)
          .orderBy('session_id')
          .orderBy('model')
          .orderBy('task')
          .execute()),
      );
    }
    return rows;
  }
}
