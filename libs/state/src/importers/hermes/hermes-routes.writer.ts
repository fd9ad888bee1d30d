import type { SqlDialect } from '../../db/sql-dialect.js';
import type { Tx } from '../../db/unit-of-work.js';
import type { ReportDelta } from '../../domain/import-report.js';
import { ConversationGenerationRepository } from '../../repositories/conversation-generation.repository.js';
import { LineageRepository } from '../../repositories/lineage.repository.js';
import { ProfileRepository } from '../../repositories/profile.repository.js';
import { RouteRepository } from '../../repositories/route.repository.js';
import { SessionRepository } from '../../repositories/session.repository.js';
import { mapSessionId, mapSource } from './hermes-mapper.js';
import type { HermesRow } from './hermes-reader.js';
import type { RunMemory } from './hermes-run-memory.js';
import { epochMs, jsonObject, nonEmpty, Repairs, text, truthy } from './hermes-values.js';
import type { WriteOptions } from './hermes-write-parts.js';

/**
 * Gateway routes and conversation generations of a Hermes file, written after its sessions,
 * through the same repositories the routing service uses.
 */
export class HermesRoutesWriter {
  private readonly sessions: SessionRepository;
  private readonly profiles = new ProfileRepository();
  private readonly routes = new RouteRepository();
  private readonly generations = new ConversationGenerationRepository();
  private readonly lineage = new LineageRepository();

  constructor(dialect: SqlDialect) {
    this.sessions = new SessionRepository(dialect);
  }

  /**
   * Gateway routes from `gateway_routing.entry_json`: each points at its session's compression tip
   * (routes move with compressions here); a newer route already here wins.
   */
  async writeRoutes(
    tx: Tx,
    entries: readonly HermesRow[],
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<void> {
    const repairs = new Repairs();
    // A dry run writes nothing: the routes it would have written in this unit, for the next entries.
    const wouldWrite = new Map<
      string,
      { session_id: string; updated_at: number; origin: string | null; created_at: number }
    >();
    for (const entry of entries) {
      const parsed = jsonObject(entry.entry_json, 'gateway_routing.entry_json', repairs);
      const label = text(entry.session_key, repairs) ?? '?';
      if (!parsed) {
        delta.warn(`route ${label}: entry_json is not a JSON object; skipped`);
        continue;
      }
      const rawSession = parsed.session_id ?? parsed.sessionId;
      const sessionKey = nonEmpty(parsed.session_key, repairs) ?? nonEmpty(entry.session_key, repairs);
      if (typeof rawSession !== 'string' || !rawSession || !sessionKey) {
        delta.warn(`route ${label}: entry names no session id or session key; skipped`);
        continue;
      }
      const sessionId = mapSessionId(rawSession).id;
      const target = await this.sessions.findById(tx.db, sessionId);
      const profile = target?.profile ?? memory.written.get(sessionId);
      if (!profile) {
        delta.warn(`route ${sessionKey}: its session ${sessionId} is not here; skipped`);
        continue;
      }
      const tip = target
        ? ((await this.lineage.tipsOf(tx.db, [sessionId])).get(sessionId) ?? sessionId)
        : memory.plannedTip(sessionId);
      const origin =
        parsed.origin && typeof parsed.origin === 'object' ? (parsed.origin as Record<string, unknown>) : null;
      const updatedAt = epochMs(entry.updated_at, 'gateway_routing.updated_at', repairs, options.now) ?? options.now;
      const existing =
        wouldWrite.get(`${profile}\n${sessionKey}`) ?? (await this.routes.find(tx.db, profile, sessionKey));
      if (existing && existing.session_id === tip) continue;
      if (existing && Number(existing.updated_at) > updatedAt) {
        delta.warn(`route ${sessionKey}: a newer route here points at ${existing.session_id}; kept`);
        continue;
      }
      if (tip !== sessionId)
        delta.warn(`route ${sessionKey}: pointed at ${sessionId}, moved to its compression tip ${tip}`);
      if (origin && typeof origin.profile === 'string' && origin.profile !== profile) {
        delta.warn(
          `route ${sessionKey}: origin names profile ${origin.profile}; kept in its session's profile ${profile}`,
        );
      }
      const route = {
        profile,
        session_key: sessionKey,
        session_id: tip,
        origin: origin ? JSON.stringify(origin) : (existing?.origin ?? null),
        suspended: truthy(parsed.suspended) ? (1 as const) : (0 as const),
        created_at: existing ? Number(existing.created_at) : updatedAt,
        updated_at: updatedAt,
      };
      if (options.dryRun) {
        wouldWrite.set(`${profile}\n${sessionKey}`, route);
      } else {
        await this.profiles.ensure(tx.db, profile, options.now);
        await this.routes.upsert(tx.db, route);
      }
      delta.routes++;
    }
    for (const line of repairs.describe('gateway_routing')) delta.warn(line);
  }

  /** Conversation generations: raised to the source's, never lowered (an ABA otherwise). */
  async writeGenerations(
    tx: Tx,
    generations: readonly { source: string; sessionKey: string; generation: number }[],
    options: WriteOptions,
  ): Promise<void> {
    // Nothing of them is in the report: a dry run has nothing to decide here.
    if (options.dryRun) return;
    for (const g of generations) {
      await this.generations.raiseTo(tx.db, mapSource(g.source), g.sessionKey, g.generation, options.now);
    }
  }
}
