import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionReopenedEvent } from '../domain/hook-registry.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { ManualClock } from '../shared/clock.js';
import { aChat, adminPrincipal, contextOf } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { sqlitePath } from './connect.js';
import { UnitOfWork } from './unit-of-work.js';

const admin = contextOf(adminPrincipal);
const AT = Date.UTC(2026, 9, 1);

/**
 * A revival and nothing else, decided on reads the writer's change stamp still vouches for, commits
 * on its own (db/solo-write.ts, decision 0026). These pin what it must still do — reopen the row once,
 * as activity, committed before the answer, heard by observers after — and when it must not run: a
 * group already open, an Idempotency-Key to record (the stale-read cases are route-revival-race.test.ts).
 */
describe('a lone revival on SQLite commits on its own', () => {
  const clock = new ManualClock(AT);
  const groups: number[] = [];
  const t = useTestStore('sqlite', { clock, onWriteLock: (_ms, requests) => groups.push(requests) });
  const reopened: SessionReopenedEvent[] = [];
  const resolve = (chat: string, extra: object = {}) =>
    t.store.routes.resolve(admin, { profile: 'solo', source: 'telegram', chatType: 'dm', chatId: chat, ...extra });
  const endedChat = async (id: string, chat: string) => {
    await aChat(t.store, { id, profile: 'solo', chatId: chat });
    const { revision } = await t.store.sessions.get(admin, id);
    return t.store.sessions.end(admin, id, { reason: 'agent_close' }, { ifMatch: revision });
  };
  const units = () => vi.spyOn(UnitOfWork.prototype, 'run');

  beforeAll(() => {
    t.store.hooks.onSessionReopened((event) => {
      reopened.push(event);
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it('[resolve.revive-reopens] reopens the row as activity, committed before it answers, without a unit of work', async () => {
    const ended = await endedChat('solo-1', 'c1');
    clock.advance(60_000);
    const run = units();
    groups.length = 0;
    expect(await resolve('c1')).toMatchObject({ sessionId: 'solo-1', via: 'recovered' });
    expect(run).not.toHaveBeenCalled();
    // One write lock for one request, and another connection (another process) already sees it.
    expect(groups).toEqual([1]);
    const other = new Database(sqlitePath(t.url), { readonly: true });
    try {
      expect(other.prepare("select ended_at, end_reason from sessions where id = 'solo-1'").get()).toEqual({
        ended_at: null,
        end_reason: null,
      });
    } finally {
      other.close();
    }
    const revived = await t.store.sessions.get(admin, 'solo-1');
    expect(revived).toMatchObject({ endedAt: null, endReason: null, endReasonDetail: null });
    expect(revived.revision).toBe(ended.revision + 1);
    expect(revived.lastActivityAt).toBe(new Date(AT + 60_000).toISOString());
    await t.store.hooks.idle();
    expect(reopened.filter((event) => event.sessionId === 'solo-1')).toEqual([
      {
        sessionId: 'solo-1',
        profile: 'solo',
        clearedEndReason: 'agent_close',
        via: 'resolve',
        revision: revived.revision,
      },
    ]);
    // The next resolve finds it open and writes nothing.
    groups.length = 0;
    expect(await resolve('c1')).toMatchObject({ sessionId: 'solo-1', via: 'recovered' });
    expect(groups).toEqual([]);
  });

  it('[resolve.revive-reopens] writes nothing when another process committed after the reads (the stamp moved)', async () => {
    await endedChat('solo-5', 'c5');
    const original = SessionRepository.prototype.peerTupleSessions;
    vi.spyOn(SessionRepository.prototype, 'peerTupleSessions').mockImplementationOnce(async function (
      this: SessionRepository,
      ...args
    ) {
      const rows = await original.apply(this, args);
      // Another process archives the ended row between the resolve's reads and its write.
      const other = new Database(sqlitePath(t.url));
      try {
        other.prepare("update sessions set archived = 1 where id = 'solo-5'").run();
      } finally {
        other.close();
      }
      return rows;
    });
    expect(await resolve('c5')).toMatchObject({ sessionId: null, via: 'none' });
    expect(await t.store.sessions.get(admin, 'solo-5')).toMatchObject({ archived: true, endReason: 'agent_close' });
  });

  it('joins the unit of work when a group is already open (another request’s write in flight)', async () => {
    await endedChat('solo-2', 'c2');
    await aChat(t.store, { id: 'solo-busy', profile: 'solo', chatId: 'c-busy' });
    const run = units();
    // The append's transaction opens the group before the resolve's reads finish; neither waits on the other.
    const [appended, resolved] = await Promise.all([
      t.store.messages.append(admin, 'solo-busy', { messages: [{ role: 'user', content: 'meanwhile' }] }),
      resolve('c2'),
    ]);
    expect(appended.created).toBe(1);
    expect(resolved).toMatchObject({ sessionId: 'solo-2', via: 'recovered' });
    expect(run).toHaveBeenCalledTimes(2);
    expect((await t.store.sessions.get(admin, 'solo-2')).endedAt).toBeNull();
  });

  it('leaves a revival with an Idempotency-Key to its unit of work, which records the key with it', async () => {
    await endedChat('solo-3', 'c3');
    const run = units();
    const ctx = {
      ...admin,
      idempotency: { key: 'solo-key-3', fingerprint: 'f', status: 200, recorded: false },
    };
    expect(
      await t.store.routes.resolve(ctx, { profile: 'solo', source: 'telegram', chatType: 'dm', chatId: 'c3' }),
    ).toMatchObject({ sessionId: 'solo-3', via: 'recovered' });
    expect(run).toHaveBeenCalledTimes(1);
    expect(ctx.idempotency.recorded).toBe(true);
    expect((await t.store.sessions.get(admin, 'solo-3')).endedAt).toBeNull();
  });

  it('leaves a revival that also stamps a transport profile to its unit of work (one statement, one revision)', async () => {
    const ended = await endedChat('solo-4', 'c4');
    const run = units();
    expect(await resolve('c4', { transportProfile: 'bot-solo' })).toMatchObject({ sessionId: 'solo-4' });
    expect(run).toHaveBeenCalledTimes(1);
    const revived = await t.store.sessions.get(admin, 'solo-4');
    expect(revived).toMatchObject({ endedAt: null, transportProfile: 'bot-solo', revision: ended.revision + 1 });
  });
});
