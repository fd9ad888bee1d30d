import {
  DELEGATION_ERROR_MAX_LENGTH,
  DELEGATION_SUMMARY_MAX_LENGTH,
  DELEGATION_TASK_MAX_BYTES,
  utf8Bytes,
} from '@statehouse/contracts';
import type { SqlDialect } from '../../db/sql-dialect.js';
import type { Tx } from '../../db/unit-of-work.js';
import type { ReportDelta } from '../../domain/import-report.js';
import { DelegationRepository } from '../../repositories/delegation.repository.js';
import { DeliveryRepository } from '../../repositories/delivery.repository.js';
import { SessionRepository } from '../../repositories/session.repository.js';
import { delegationFingerprint } from '../../services/delegation.service.js';
import { deliveryFingerprint } from '../../services/delivery.service.js';
import { mapSessionId } from './hermes-mapper.js';
import type { HermesRow } from './hermes-reader.js';
import type { RunMemory } from './hermes-run-memory.js';
import { counter, epochMs, json, jsonObject, nonEmpty, Repairs, text } from './hermes-values.js';
import type { WriteOptions } from './hermes-write-parts.js';

/** Hermes' redelivery policy (its delivery ledger): 3 attempts, nothing older than a day is sent again. */
export const HERMES_DELIVERY_MAX_ATTEMPTS = 3;
export const HERMES_DELIVERY_STALE_MS = 24 * 60 * 60 * 1000;

const DONE_STATES = new Set(['completed', 'complete', 'done', 'success', 'succeeded']);
const FAILED_STATES = new Set([
  'error',
  'failed',
  'failure',
  'cancelled',
  'canceled',
  'interrupted',
  'timeout',
  'timed_out',
]);
const UNFINISHED_STATES = new Set(['queued', 'pending', 'running', 'dispatched', 'started']);
/** An unfinished delegation's runner was a Hermes process: it never reports here. */
export const INTERRUPTED_BY_IMPORT =
  'interrupted: still running in Hermes when imported; its runner does not report here';

const OWED_OBLIGATION_STATES = new Set(['pending', 'attempting', 'failed']);

/** Where a session of the file (or of the store) lives now, as both a run and a dry run see it. */
type Locate = (tx: Tx, id: string) => Promise<{ id: string; profile: string } | null>;

/**
 * Hermes' runtime ledgers that map onto Statehouse (docs/migrating-from-hermes.md): async
 * delegations → the delegation ledger, delivery obligations → delivery obligations. Written after
 * the sessions (they refer to them), once: a row whose id is here already is left as it is (the
 * runtime here has moved on since), so importing twice changes nothing.
 */
export class HermesRuntimeWriter {
  private readonly sessions: SessionRepository;
  private readonly delegations: DelegationRepository;
  private readonly deliveries: DeliveryRepository;

  constructor(dialect: SqlDialect) {
    this.sessions = new SessionRepository(dialect);
    this.delegations = new DelegationRepository(dialect);
    this.deliveries = new DeliveryRepository(dialect);
  }

  /** A session by its (mapped) id: in the store, or written by this run (a dry run wrote nothing). */
  private locate(memory: RunMemory): Locate {
    return async (tx, id) => {
      const row = await this.sessions.findById(tx.db, id);
      if (row) return { id: row.id, profile: row.profile };
      const profile = memory.written.get(id);
      return profile === undefined ? null : { id, profile };
    };
  }

  async writeDelegations(
    tx: Tx,
    rows: readonly HermesRow[],
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<void> {
    const locate = this.locate(memory);
    for (const row of rows) {
      const repairs = new Repairs();
      const label = text(row.delegation_id, repairs) ?? '?';
      const skip = (why: string) => {
        delta.delegations.skipped++;
        delta.warn(`delegation ${label}: ${why}; not imported`);
      };
      const rawId = nonEmpty(row.delegation_id, repairs);
      if (rawId === null) {
        skip('no delegation_id');
        continue;
      }
      const id = mapSessionId(rawId).id;
      const state = (nonEmpty(row.state, repairs) ?? '').toLowerCase();
      const deliveryState = (nonEmpty(row.delivery_state, repairs) ?? 'pending').toLowerCase();
      if (!DONE_STATES.has(state) && !FAILED_STATES.has(state) && !UNFINISHED_STATES.has(state)) {
        skip(`state "${state || 'none'}" is not one Statehouse keeps (a tombstone or unknown)`);
        continue;
      }
      if (deliveryState !== 'pending' && deliveryState !== 'delivered' && deliveryState !== 'claimed') {
        skip(`its wake-up is in delivery state "${deliveryState}", neither owed nor delivered`);
        continue;
      }
      // The wake target: the explicit origin id, else the parent agent's session, else the origin.
      let origin: { id: string; profile: string } | null = null;
      for (const column of ['origin_session_id', 'parent_session_id', 'origin_session'] as const) {
        const candidate = nonEmpty(row[column], repairs);
        if (candidate === null) continue;
        origin = await locate(tx, mapSessionId(candidate).id);
        if (origin) break;
      }
      if (!origin) {
        skip('its origin session is not here (not in the file, or deleted here)');
        continue;
      }
      const existing = await this.delegations.find(tx.db, id);
      if (existing) {
        delta.delegations.skipped++;
        continue;
      }
      const results = resultsOf(json(row.result_json, 'async_delegations.result_json', repairs));
      let child: string | null = null;
      for (const result of results) {
        const candidate = typeof result.child_session_id === 'string' ? result.child_session_id : null;
        if (!candidate) continue;
        const found = await locate(tx, mapSessionId(candidate).id);
        if (found && found.profile === origin.profile) {
          child = found.id;
          break;
        }
      }
      let task = jsonObject(row.task_json, 'async_delegations.task_json', repairs);
      if (task && utf8Bytes(JSON.stringify(task)) > DELEGATION_TASK_MAX_BYTES) {
        delta.warn(`delegation ${label}: task_json over ${DELEGATION_TASK_MAX_BYTES} bytes left out`);
        task = null;
      }
      const dispatchedAt = epochMs(row.dispatched_at, 'async_delegations.dispatched_at', repairs, options.now);
      const updatedAt = epochMs(row.updated_at, 'async_delegations.updated_at', repairs, options.now);
      const createdAt = dispatchedAt ?? updatedAt ?? options.now;
      let completedAt = epochMs(row.completed_at, 'async_delegations.completed_at', repairs, options.now);
      const summaries = results.flatMap((r) => (typeof r.summary === 'string' && r.summary.trim() ? [r.summary] : []));
      const errors = results.flatMap((r) => (typeof r.error === 'string' && r.error.trim() ? [r.error] : []));
      let finished: 'done' | 'failed';
      let error: string | null = null;
      if (DONE_STATES.has(state)) finished = 'done';
      else if (FAILED_STATES.has(state)) {
        finished = 'failed';
        error = errors.length > 0 ? errors.join('\n') : state;
      } else {
        finished = 'failed';
        error = INTERRUPTED_BY_IMPORT;
        completedAt = options.now;
        delta.warn(
          `delegation ${label}: still ${state} in Hermes; imported as failed (interrupted) to wake its origin`,
        );
      }
      let summary = summaries.length > 0 ? summaries.join('\n\n') : null;
      if (summary !== null && summary.length > DELEGATION_SUMMARY_MAX_LENGTH) {
        delta.warn(`delegation ${label}: result summary cut to ${DELEGATION_SUMMARY_MAX_LENGTH} characters`);
        summary = summary.slice(0, DELEGATION_SUMMARY_MAX_LENGTH);
      }
      const delivered = deliveryState === 'delivered';
      const at = completedAt ?? updatedAt ?? createdAt;
      for (const line of repairs.describe(`delegation ${label}`)) delta.warn(line);
      delta.delegations.created++;
      if (options.dryRun) continue;
      await this.delegations.insertIfAbsent(tx.db, {
        id,
        profile: origin.profile,
        origin_session_id: origin.id,
        child_session_id: child,
        state: delivered ? 'delivered' : finished,
        task: task ? JSON.stringify(task) : null,
        result_summary: summary,
        error: error?.slice(0, DELEGATION_ERROR_MAX_LENGTH) ?? null,
        fingerprint: delegationFingerprint(origin.id, child, task ?? undefined),
        wake_attempts: counter(row.delivery_attempts),
        created_at: createdAt,
        updated_at: Math.max(createdAt, updatedAt ?? createdAt),
        completed_at: at,
        delivered_at: delivered
          ? (epochMs(row.delivered_at, 'async_delegations.delivered_at', repairs, options.now) ?? at)
          : null,
      });
    }
  }

  /**
   * Delivery obligations are keyed by the chat's routing key in Hermes; here by session: the session
   * the file's route for that key names (else the newest session on it), at its compression tip.
   */
  async writeObligations(
    tx: Tx,
    rows: readonly HermesRow[],
    sessionForKey: ReadonlyMap<string, string>,
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<void> {
    const locate = this.locate(memory);
    for (const row of rows) {
      const repairs = new Repairs();
      const label = text(row.obligation_id, repairs) ?? '?';
      const skip = (why: string) => {
        delta.deliveries.skipped++;
        delta.warn(`delivery obligation ${label}: ${why}; not imported`);
      };
      const rawId = nonEmpty(row.obligation_id, repairs);
      const content = text(row.content, repairs);
      if (rawId === null || content === null) {
        skip('no obligation_id or content');
        continue;
      }
      const id = mapSessionId(rawId).id;
      const key = nonEmpty(row.session_key, repairs);
      const fileSession = key === null ? undefined : sessionForKey.get(key);
      const session = fileSession === undefined ? null : await locate(tx, memory.plannedTip(fileSession));
      if (!session) {
        skip(`no session here for its chat ${key ?? '(no session_key)'}`);
        continue;
      }
      const state = (nonEmpty(row.state, repairs) ?? '').toLowerCase();
      if (state !== 'delivered' && state !== 'abandoned' && !OWED_OBLIGATION_STATES.has(state)) {
        skip(`state "${state || 'none'}" is unknown`);
        continue;
      }
      if (await this.deliveries.find(tx.db, id)) {
        delta.deliveries.skipped++;
        continue;
      }
      const createdAt = epochMs(row.created_at, 'delivery_obligations.created_at', repairs, options.now) ?? options.now;
      const updatedAt = Math.max(
        createdAt,
        epochMs(row.updated_at, 'delivery_obligations.updated_at', repairs, options.now) ?? createdAt,
      );
      const attempts = counter(row.attempts);
      const maxAttempts = Math.max(HERMES_DELIVERY_MAX_ATTEMPTS, attempts);
      let stored: 'pending' | 'delivered' | 'abandoned';
      let abandonedReason: string | null = null;
      if (state === 'delivered') stored = 'delivered';
      else if (state === 'abandoned' || attempts >= HERMES_DELIVERY_MAX_ATTEMPTS) {
        stored = 'abandoned';
        abandonedReason = attempts >= HERMES_DELIVERY_MAX_ATTEMPTS ? 'attempts_exhausted' : 'expired';
      } else if (options.now - createdAt > HERMES_DELIVERY_STALE_MS) {
        // Hermes never sends a reply older than a day again; neither does an import.
        stored = 'abandoned';
        abandonedReason = 'expired';
        delta.warn(`delivery obligation ${label}: owed but older than a day; imported as abandoned (expired)`);
      } else stored = 'pending';
      const payload: Record<string, unknown> = {
        platform: text(row.platform, repairs),
        chatId: text(row.chat_id, repairs),
        threadId: nonEmpty(row.thread_id, repairs),
        content,
        source: 'hermes',
        sessionKey: key,
        // Hermes marks a reply whose send may have started: the chat may have it already.
        mayBeDuplicate: state === 'attempting' || state === 'failed',
      };
      const replyTo = nonEmpty(row.reply_to, repairs);
      if (replyTo !== null) payload.replyTo = replyTo;
      const transportProfile = nonEmpty(row.transport_profile, repairs) ?? nonEmpty(row.adapter_profile, repairs);
      for (const line of repairs.describe(`delivery obligation ${label}`)) delta.warn(line);
      delta.deliveries.created++;
      if (options.dryRun) continue;
      await this.deliveries.insertIfAbsent(tx.db, {
        id,
        profile: session.profile,
        session_id: session.id,
        transport_profile: transportProfile,
        payload: JSON.stringify(payload),
        fingerprint: deliveryFingerprint(session.id, transportProfile, payload, maxAttempts),
        state: stored,
        attempts,
        max_attempts: maxAttempts,
        last_error: nonEmpty(row.last_error, repairs),
        abandoned_reason: abandonedReason,
        created_at: createdAt,
        updated_at: updatedAt,
        delivered_at: stored === 'delivered' ? updatedAt : null,
      });
    }
  }
}

/** `result_json`: `{results: [...]}`, one result object, a list of them, or the summary as a string. */
function resultsOf(value: unknown): Record<string, unknown>[] {
  if (typeof value === 'string') return value.trim() ? [{ summary: value }] : [];
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object' && Array.isArray((value as { results?: unknown }).results)
      ? (value as { results: unknown[] }).results
      : value && typeof value === 'object'
        ? [value]
        : [];
  return list.filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object');
}
