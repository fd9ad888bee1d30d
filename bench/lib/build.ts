import type { Preconditions, StateStore } from '@statehouse/state';
import { type MessageFactory, PROFILES, type SessionSeedRow } from './data.js';
import { ADMIN_CTX } from './stores.js';

/** A session's current concurrency tokens: what a destructive call presents (If-Match, X-Expected-Generation). */
export async function tokensOf(store: StateStore, id: string): Promise<Required<Omit<Preconditions, 'turnId'>>> {
  const session = await store.sessions.get(ADMIN_CTX, id);
  return { ifMatch: session.revision, expectedGeneration: session.generation };
}

/**
 * Setup (not measured): a session created through the store and filled with `count` generated
 * messages by batched appends of `batch` (the way an importer or a long conversation's client would).
 */
export async function sessionWithMessages(
  store: StateStore,
  factory: MessageFactory,
  options: { id: string; profile: string; count: number; batch?: number; source?: string },
): Promise<void> {
  const batch = options.batch ?? 1000;
  await store.sessions.create(ADMIN_CTX, { id: options.id, profile: options.profile, source: options.source ?? 'cli' });
  for (let done = 0; done < options.count; done += batch) {
    const messages = factory.messages(Math.min(batch, options.count - done));
    await store.messages.append(ADMIN_CTX, options.id, { messages });
  }
}

const INSERT_CHUNK = 300;

/** Setup only (not measured): session rows inserted in bulk with Kysely on the store's own connection. */
export async function insertSessions(store: StateStore, rows: readonly SessionSeedRow[]): Promise<void> {
  const now = Date.now();
  await store.db
    .insertInto('profiles')
    .values(PROFILES.map((name) => ({ name, created_at: now })))
    .onConflict((oc) => oc.doNothing())
    .execute();
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('sessions')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  });
}
