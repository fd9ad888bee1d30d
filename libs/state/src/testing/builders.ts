import type {
  AppendMessagesResponse,
  BranchRequest,
  ChildResponse,
  CreateSessionCommand,
  MessageInput,
  ProfileSummary,
  Session,
} from '@statehouse/contracts';
import { routingKey } from '../services/route.service.js';
import { ManualClock } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import type { StateStore } from '../store.js';
import { adminPrincipal, contextOf } from './principals.js';

/**
 * Builders for the state a test starts from: sessions, messages, lineage and profiles, written
 * through the store's own services (so every rule a gateway meets applies to them too). Each takes
 * the store first and fills what the test does not care about; what it does care about it names.
 */

const admin = contextOf(adminPrincipal);

interface Common {
  /** Who acts (an admin unless told). */
  as?: OperationContext;
  /** Advance the store's ManualClock by this much first, so each session gets a time of its own. */
  advanceMs?: number;
}

export interface SessionSpec extends Partial<CreateSessionCommand>, Common {
  /** A starting transcript of this many messages (`conversation(n, id)`), when `messages` is not given. */
  lines?: number;
}

function advance(store: StateStore, ms: number | undefined): void {
  if (!ms) return;
  if (!(store.clock instanceof ManualClock)) throw new Error('advanceMs needs a store opened with a ManualClock');
  store.clock.advance(ms);
}

/** `n` messages, user and assistant in turn (the first a user's), each naming `prefix` and its index. */
export function conversation(n: number, prefix = 'line'): MessageInput[] {
  return Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `${prefix} line ${i}`,
  }));
}

/** A session: profile `p`, source `cli` unless told; `lines` gives it a starting transcript. */
export function aSession(store: StateStore, spec: SessionSpec = {}): Promise<Session> {
  const { as = admin, advanceMs, lines, ...request } = spec;
  advance(store, advanceMs);
  const messages = request.messages ?? (lines ? conversation(lines, request.id ?? 'session') : undefined);
  return store.sessions.create(as, {
    profile: 'p',
    source: 'cli',
    ...request,
    ...(messages ? { messages } : {}),
  });
}

export interface ChatSpec extends SessionSpec {
  chatId: string;
}

/**
 * A gateway's chat session: source `telegram`, a `dm` unless told, routed by the key a gateway
 * derives (`routingKey(profile, source, chatType, chatId)`).
 */
export function aChat(store: StateStore, spec: ChatSpec): Promise<Session> {
  const profile = spec.profile ?? 'p';
  const source = spec.source ?? 'telegram';
  const chatType = spec.chatType ?? 'dm';
  return aSession(store, {
    sessionKey: routingKey(profile, source, chatType, spec.chatId),
    ...spec,
    profile,
    source,
    chatType,
  });
}

/** Ends a session as the admin with `reason` (an end reason, unchecked), presenting the revision it has now. */
export async function endSession(store: StateStore, id: string, reason: string) {
  const { revision } = await store.sessions.get(admin, id);
  return store.sessions.end(admin, id, { reason: reason as never }, { ifMatch: revision });
}

/** The If-Match and X-Expected-Generation a caller that just read the session would present. */
export async function tokensOf(
  store: StateStore,
  id: string,
  as: OperationContext = admin,
): Promise<Required<Pick<Preconditions, 'ifMatch' | 'expectedGeneration'>>> {
  const session = await store.sessions.get(as, id);
  return { ifMatch: session.revision, expectedGeneration: session.generation };
}

/**
 * Appends `n` messages to a session in one call: user and assistant in turn, `content(i)` each
 * (`<sessionId> message <i>` unless told).
 */
export function someMessages(
  store: StateStore,
  sessionId: string,
  n: number,
  options: { content?: (i: number) => string; as?: OperationContext; preconditions?: Preconditions } = {},
): Promise<AppendMessagesResponse> {
  const content = options.content ?? ((i: number) => `${sessionId} message ${i}`);
  const messages = Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: content(i),
  }));
  return store.messages.append(options.as ?? admin, sessionId, { messages }, options.preconditions);
}

/**
 * A continuation written as a gateway or an import writes one: a session created with the parent
 * named and `lineageKind: 'compression'`, in the parent's profile.
 */
export async function aContinuation(store: StateStore, parentId: string, spec: SessionSpec = {}): Promise<Session> {
  const parent = await store.sessions.get(spec.as ?? admin, parentId);
  return aSession(store, {
    profile: parent.profile,
    source: parent.source ?? 'cli',
    parentSessionId: parentId,
    lineageKind: 'compression',
    ...spec,
  });
}

/**
 * A compression chain made by the store's own compress: a root with `lines` messages (4 unless
 * told), compressed `length - 1` times, child i named `<rootId>-c<i>`. Returns the ids, root first.
 */
export async function aCompressionChain(
  store: StateStore,
  options: SessionSpec & { id: string; length: number; keepLastMessages?: number },
): Promise<string[]> {
  const { length, keepLastMessages = 0, ...root } = options;
  await aSession(store, { lines: 4, ...root });
  const ids = [root.id];
  for (let i = 1; i < length; i++) {
    const parent = ids[ids.length - 1];
    advance(store, root.advanceMs);
    const { child } = await store.lineage.compress(
      root.as ?? admin,
      parent,
      { summary: `summary of ${parent}`, keepLastMessages, childId: `${root.id}-c${i}` },
      await tokensOf(store, parent, root.as),
    );
    ids.push(child.id);
  }
  return ids;
}

/** A branch of `parentId` made by the store's own branch (the whole transcript unless told). */
export async function aBranch(
  store: StateStore,
  parentId: string,
  request: BranchRequest = {},
  as: OperationContext = admin,
): Promise<ChildResponse> {
  return store.lineage.branch(as, parentId, request, await tokensOf(store, parentId, as));
}

/** A profile, registered by an admin; `sessions` gives it that many sessions (`<name>-<i>`, one line each). */
export async function aProfile(
  store: StateStore,
  name: string,
  options: { sessions?: number; as?: OperationContext } = {},
): Promise<ProfileSummary> {
  const as = options.as ?? admin;
  await store.profiles.create(as, name);
  for (let i = 0; i < (options.sessions ?? 0); i++) {
    await aSession(store, { id: `${name}-${i}`, profile: name, lines: 1, as });
  }
  return (await store.profiles.list(as)).find((profile) => profile.name === name)!;
}
