import type { CreateScheduleRequest } from '@statehouse/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { SET_ASIDE_MS } from '../repositories/schedule.repository.js';
import { ManualClock } from '../shared/clock.js';
import {
  ClaimExpiredError,
  ConflictError,
  NotFoundError,
  PreconditionRequiredError,
  RevisionConflictError,
  SessionClosedError,
  ValidationError,
} from '../shared/errors.js';
import { adminPrincipal, contextOf, memberPrincipal, scanForIds, TEST_DIALECTS, tokensOf } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const START = Date.UTC(2026, 10, 2, 8, 0, 0);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`scheduled wake-ups on ${dialect}`, () => {
    const clock = new ManualClock(START);
    const t = useTestStore(dialect, { clock });

    /** A session of `profile`, owned by `gateway` when given, routed by its chat key unless `routed` is false. */
    const chat = async (id: string, options: { profile?: string; gateway?: string; routed?: boolean } = {}) => {
      const profile = options.profile ?? 'sch';
      const sessionKey = `agent:${profile}:telegram:dm:${id}`;
      const session = await t.store.sessions.create(admin, {
        id,
        profile,
        source: 'telegram',
        sessionKey,
        chatId: id,
        chatType: 'dm',
        ...(options.gateway ? { gatewayId: options.gateway } : {}),
        messages: [{ role: 'user', content: `hello ${id}` }],
      });
      if (options.routed !== false) {
        await t.store.routes.set(admin, { profile, sessionKey, sessionId: id });
      }
      return session;
    };
    /** Gateways that heartbeat before every claim (alive, as a running gateway is). */
    const running = new Map<string, string>();
    const heartbeat = (id: string, profile = 'sch') => {
      running.set(id, profile);
      return t.store.gateways.heartbeat(admin, id, { profile, host: 'host', pid: 1, startedAt: START - MINUTE });
    };
    const every = (seconds: number, extra: Partial<CreateScheduleRequest> = {}): CreateScheduleRequest => ({
      kind: 'interval',
      intervalSeconds: seconds,
      payload: { prompt: 'heartbeat' },
      enabled: true,
      ...extra,
    });
    const claim = async (gatewayId: string, limit = 10, leaseSeconds = 30) => {
      for (const [id, profile] of running) await heartbeat(id, profile);
      return t.store.schedules.claim(admin, { gatewayId, leaseSeconds, limit });
    };

    beforeAll(async () => {
      await t.store.profiles.create(admin, 'sch');
      await heartbeat('gw-a');
      await heartbeat('gw-b');
    });

    it('[schedules.definition] creates, lists, reads, changes under If-Match and deletes a schedule', async () => {
      clock.set(START);
      await chat('crud');
      const created = await t.store.schedules.create(admin, 'crud', every(300, { id: 'crud-hb' }));
      expect(created).toMatchObject({
        id: 'crud-hb',
        sessionId: 'crud',
        profile: 'sch',
        kind: 'interval',
        intervalSeconds: 300,
        cron: null,
        timeZone: null,
        payload: { prompt: 'heartbeat' },
        enabled: true,
        nextDueAt: new Date(START + 300 * SECOND).toISOString(),
        lastFiredAt: null,
        revision: 1,
        claim: null,
      });
      const cron = await t.store.schedules.create(admin, 'crud', {
        kind: 'cron',
        cron: '0 9 * * 1-5',
        timeZone: 'Europe/Berlin',
        payload: {},
        enabled: true,
      });
      // Monday 2026-11-02 08:00 UTC is 09:00 in Berlin: the next match after now is Tuesday's.
      expect(cron.nextDueAt).toBe('2026-11-03T08:00:00.000Z');
      await expect(t.store.schedules.create(admin, 'crud', every(60, { id: 'crud-hb' }))).rejects.toBeInstanceOf(
        ConflictError,
      );
      const page = await t.store.schedules.list(admin, 'crud', { limit: 1 });
      expect(page.items).toHaveLength(1);
      const rest = await t.store.schedules.list(admin, 'crud', { limit: 10, cursor: page.nextCursor! });
      expect([...page.items, ...rest.items].map((s) => s.id).sort()).toEqual([cron.id, 'crud-hb'].sort());

      await expect(
        t.store.schedules.update(admin, 'crud', 'crud-hb', { intervalSeconds: 60 }, {}),
      ).rejects.toBeInstanceOf(PreconditionRequiredError);
      await expect(
        t.store.schedules.update(admin, 'crud', 'crud-hb', { intervalSeconds: 60 }, { ifMatch: 7 }),
      ).rejects.toMatchObject({ code: 'revision_conflict', currentRevision: 1 });
      clock.advance(10 * SECOND);
      const patched = await t.store.schedules.update(
        admin,
        'crud',
        'crud-hb',
        { intervalSeconds: 60, payload: { prompt: 'check in' } },
        { ifMatch: 1 },
      );
      // A new timing starts from now.
      expect(patched).toMatchObject({
        revision: 2,
        intervalSeconds: 60,
        payload: { prompt: 'check in' },
        nextDueAt: new Date(START + 70 * SECOND).toISOString(),
      });
      const toCron = await t.store.schedules.update(
        admin,
        'crud',
        'crud-hb',
        { kind: 'cron', cron: '*/15 * * * *' },
        { ifMatch: 2 },
      );
      expect(toCron).toMatchObject({ kind: 'cron', intervalSeconds: null, cron: '*/15 * * * *', revision: 3 });
      expect(await t.store.schedules.get(admin, 'crud', 'crud-hb')).toEqual(toCron);
      expect(await t.store.schedules.probe(admin, 'crud', 'crud-hb')).toEqual({ revision: 3 });
      expect(await t.store.schedules.probeSession(admin, 'crud')).toEqual({ count: 2 });

      await expect(t.store.schedules.deleteOne(admin, 'crud', 'crud-hb', { ifMatch: 2 })).rejects.toBeInstanceOf(
        RevisionConflictError,
      );
      await t.store.schedules.deleteOne(admin, 'crud', 'crud-hb', { ifMatch: 3 });
      await t.store.schedules.deleteOne(admin, 'crud', cron.id, { ifMatch: 1 });
      await expect(t.store.schedules.get(admin, 'crud', 'crud-hb')).rejects.toBeInstanceOf(NotFoundError);
      await expect(t.store.schedules.probe(admin, 'crud', 'crud-hb')).rejects.toBeInstanceOf(NotFoundError);
      await expect(t.store.schedules.probeSession(admin, 'crud')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('[schedules.definition] refuses timings that do not hold together and unreadable cron expressions', async () => {
      await chat('bad');
      const refused = [
        { kind: 'interval' as const, payload: {}, enabled: true },
        { kind: 'interval' as const, intervalSeconds: 5, cron: '* * * * *', payload: {}, enabled: true },
        { kind: 'interval' as const, intervalSeconds: 5, timeZone: 'UTC', payload: {}, enabled: true },
        { kind: 'cron' as const, payload: {}, enabled: true },
        { kind: 'cron' as const, cron: '61 * * * *', payload: {}, enabled: true },
        { kind: 'cron' as const, cron: '*/5 * * * * *', payload: {}, enabled: true },
        { kind: 'cron' as const, cron: '0 0 30 2 *', payload: {}, enabled: true },
      ];
      for (const request of refused) {
        await expect(t.store.schedules.create(admin, 'bad', request)).rejects.toBeInstanceOf(ValidationError);
      }
      await expect(t.store.schedules.create(admin, 'no-such-session', every(5))).rejects.toBeInstanceOf(NotFoundError);
      // The owner fence: another profile's member sees no session.
      await expect(
        t.store.schedules.create(contextOf(memberPrincipal(['other'])), 'bad', every(5)),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('[schedules.active] is active while enabled and the session is open or ended automatically, not archived', async () => {
      clock.set(START);
      await chat('act', { gateway: 'gw-a' });
      const schedule = await t.store.schedules.create(admin, 'act', every(60, { id: 'act-hb' }));
      expect(schedule).toMatchObject({ active: true, inactiveReason: null });
      clock.advance(2 * MINUTE);
      const dueIds = async () =>
        (await t.store.schedules.due(admin, { profile: 'sch', gatewayId: 'gw-a', limit: 50 })).items.map((s) => s.id);
      expect(await dueIds()).toContain('act-hb');

      // An automatic end (the gateway went away): the conversation lives on, and so does its heartbeat.
      await t.store.sessions.end(admin, 'act', { reason: 'ws_orphan_reap' }, await tokensOf(t.store, 'act'));
      expect(await t.store.schedules.get(admin, 'act', 'act-hb')).toMatchObject({ active: true });
      expect(await dueIds()).toContain('act-hb');
      await t.store.sessions.reopen(admin, 'act', {}, await tokensOf(t.store, 'act'));

      // A deliberate close pauses it until the session is reopened.
      await t.store.sessions.end(admin, 'act', { reason: 'cli_close' }, await tokensOf(t.store, 'act'));
      expect(await t.store.schedules.get(admin, 'act', 'act-hb')).toMatchObject({
        active: false,
        inactiveReason: 'session_ended',
      });
      expect(await dueIds()).not.toContain('act-hb');
      expect((await claim('gw-a', 100)).items.map((s) => s.id)).not.toContain('act-hb');
      await t.store.sessions.reopen(admin, 'act', { transportProfile: 'telegram' }, await tokensOf(t.store, 'act'));
      expect(await dueIds()).toContain('act-hb');

      // Archived: put away by a person; unarchived, it is active again.
      await t.store.sessions.update(admin, 'act', { archived: true }, await tokensOf(t.store, 'act'));
      expect(await t.store.schedules.get(admin, 'act', 'act-hb')).toMatchObject({ inactiveReason: 'session_archived' });
      expect(await dueIds()).not.toContain('act-hb');
      await t.store.sessions.update(admin, 'act', { archived: false }, await tokensOf(t.store, 'act'));

      // Disabled by its owner.
      const disabled = await t.store.schedules.update(admin, 'act', 'act-hb', { enabled: false }, { ifMatch: 1 });
      expect(disabled).toMatchObject({ active: false, inactiveReason: 'disabled' });
      expect(await dueIds()).not.toContain('act-hb');
      await t.store.schedules.update(admin, 'act', 'act-hb', { enabled: true }, { ifMatch: 2 });
      expect(await dueIds()).toContain('act-hb');
    });

    it('[schedules.owner-follows-route] the owner is the gateway of the routed session; an unroutable tick is reported and never claimed', async () => {
      clock.set(START);
      await chat('own-a', { gateway: 'gw-a' });
      await chat('own-none');
      await chat('own-lost', { gateway: 'gw-b', routed: false });
      for (const id of ['own-a', 'own-none', 'own-lost']) {
        await t.store.schedules.create(admin, id, every(30, { id: `${id}-hb` }));
      }
      expect((await t.store.schedules.get(admin, 'own-a', 'own-a-hb')).owner).toEqual({
        ownership: 'owned',
        gatewayId: 'gw-a',
      });
      expect((await t.store.schedules.get(admin, 'own-none', 'own-none-hb')).owner).toEqual({
        ownership: 'unowned',
        gatewayId: null,
      });
      expect((await t.store.schedules.get(admin, 'own-lost', 'own-lost-hb')).owner).toEqual({
        ownership: 'unroutable',
        gatewayId: null,
      });
      clock.advance(MINUTE);
      const due = async (query: Record<string, string> = {}) =>
        (await t.store.schedules.due(admin, { profile: 'sch', limit: 200, ...query })).items.map((s) => s.id);
      expect(await due({ ownership: 'unroutable' })).toContain('own-lost-hb');
      expect(await due({ ownership: 'unroutable' })).not.toContain('own-a-hb');
      expect(await due({ ownership: 'unowned' })).toContain('own-none-hb');
      expect(await due({ gatewayId: 'gw-a' })).toContain('own-a-hb');
      expect(await due({ gatewayId: 'gw-b' })).not.toContain('own-lost-hb');
      expect(await t.store.schedules.countUnroutableDue(admin)).toContainEqual({ profile: 'sch', count: 1 });
      expect(
        (await t.store.schedules.listInProfile(admin, { profile: 'sch', gatewayId: 'gw-b', limit: 50 })).items,
      ).toEqual([]);

      // Neither the gateway that owns the session nor anyone else fires an unroutable tick.
      const claimedA = (await claim('gw-a', 100)).items.map((s) => s.id);
      const claimedB = (await claim('gw-b', 100)).items.map((s) => s.id);
      expect(claimedA).toContain('own-a-hb');
      expect([...claimedA, ...claimedB]).not.toContain('own-lost-hb');
      expect([...claimedA, ...claimedB]).not.toContain('own-none-hb');

      // A route makes it claimable by the session's gateway — only that one, once the minute it was
      // set aside for (the claims above walked past it) is over.
      await t.store.routes.set(admin, {
        profile: 'sch',
        sessionKey: 'agent:sch:telegram:dm:own-lost',
        sessionId: 'own-lost',
      });
      expect((await claim('gw-b', 100)).items.map((s) => s.id)).toEqual([]);
      clock.advance(SET_ASIDE_MS);
      expect((await claim('gw-a', 100)).items.map((s) => s.id)).not.toContain('own-lost-hb');
      expect((await claim('gw-b', 100)).items.map((s) => s.id)).toEqual(['own-lost-hb']);
      expect(await t.store.schedules.countUnroutableDue(admin)).not.toContainEqual(
        expect.objectContaining({ profile: 'sch' }),
      );
      expect(
        (await t.store.schedules.listInProfile(admin, { profile: 'sch', gatewayId: 'gw-b', limit: 50 })).items.map(
          (s) => s.id,
        ),
      ).toEqual(['own-lost-hb']);
    });

    it('[schedules.move-with-conversation] compression and reset children take the schedules with the route, in one transaction', async () => {
      clock.set(START);
      await chat('mv', { gateway: 'gw-a' });
      await t.store.schedules.create(admin, 'mv', every(60, { id: 'mv-hb' }));
      const { child: compressed } = await t.store.lineage.compress(
        admin,
        'mv',
        { summary: 'so far', keepLastMessages: 1, childId: 'mv-2' },
        await tokensOf(t.store, 'mv'),
      );
      expect(compressed.id).toBe('mv-2');
      const moved = await t.store.schedules.get(admin, 'mv-2', 'mv-hb');
      expect(moved).toMatchObject({ sessionId: 'mv-2', revision: 2, owner: { ownership: 'owned', gatewayId: 'gw-a' } });
      await expect(t.store.schedules.get(admin, 'mv', 'mv-hb')).rejects.toBeInstanceOf(NotFoundError);
      // A compressed segment takes no new schedules: the conversation continues at the tip.
      await expect(t.store.schedules.create(admin, 'mv', every(60))).rejects.toBeInstanceOf(SessionClosedError);

      await t.store.lineage.reset(
        admin,
        'mv-2',
        { reason: 'session_reset', childId: 'mv-3' },
        await tokensOf(t.store, 'mv-2'),
      );
      const reset = await t.store.schedules.get(admin, 'mv-3', 'mv-hb');
      expect(reset).toMatchObject({
        sessionId: 'mv-3',
        active: true,
        owner: { ownership: 'owned', gatewayId: 'gw-a' },
      });
      const routes = await t.store.routes.list(admin, { profile: 'sch', sessionId: 'mv-3', limit: 10 });
      expect(routes.items).toHaveLength(1);

      // Exactly one owner for the due tick after the moves: the tip's gateway claims it once.
      clock.advance(2 * MINUTE);
      const [a, b] = await Promise.all([claim('gw-a', 100), claim('gw-b', 100)]);
      expect([...a.items, ...b.items].filter((s) => s.id === 'mv-hb')).toHaveLength(1);
      expect(a.items.map((s) => s.id)).toContain('mv-hb');
    });

    it('[schedules.claim-fenced] claims under a lease with a generation; a stale completion is refused; a crashed claim lapses', async () => {
      clock.set(START);
      await chat('fence', { gateway: 'gw-a' });
      await t.store.schedules.create(admin, 'fence', every(60, { id: 'fence-hb' }));
      expect((await claim('gw-a')).items.map((s) => s.id)).not.toContain('fence-hb');
      clock.advance(MINUTE);
      const first = (await claim('gw-a', 100)).items.find((s) => s.id === 'fence-hb')!;
      expect(first.claim).toMatchObject({
        generation: 1,
        holder: 'gw-a',
        dueAt: new Date(START + MINUTE).toISOString(),
        expiresAt: new Date(START + MINUTE + 30 * SECOND).toISOString(),
      });
      // Claimed: not due, not claimable again while the lease lives.
      expect((await claim('gw-a', 100)).items.map((s) => s.id)).not.toContain('fence-hb');
      expect((await t.store.schedules.due(admin, { profile: 'sch', limit: 200 })).items.map((s) => s.id)).not.toContain(
        'fence-hb',
      );

      // The claimer crashes: its lease lapses and the tick is claimed again, under a new generation.
      clock.advance(31 * SECOND);
      const second = (await claim('gw-a', 100)).items.find((s) => s.id === 'fence-hb')!;
      expect(second.claim).toMatchObject({ generation: 2, dueAt: new Date(START + MINUTE).toISOString() });
      await expect(t.store.schedules.complete(admin, 'fence-hb', { generation: 1 })).rejects.toBeInstanceOf(
        ClaimExpiredError,
      );
      await expect(t.store.schedules.complete(admin, 'fence-hb', { generation: 1 })).rejects.toMatchObject({
        code: 'claim_expired',
      });
      const done = await t.store.schedules.complete(admin, 'fence-hb', { generation: 2 });
      expect(done).toMatchObject({
        claim: null,
        lastFiredAt: new Date(START + MINUTE + 31 * SECOND).toISOString(),
        nextDueAt: new Date(START + 2 * MINUTE).toISOString(),
        revision: 2,
      });
      // A retried completion answers the schedule as it stands; nothing moves twice.
      expect(await t.store.schedules.complete(admin, 'fence-hb', { generation: 2 })).toEqual(done);

      // A lapsed claim that nobody took over still completes: the tick did fire.
      clock.set(START + 2 * MINUTE);
      const third = (await claim('gw-a', 100)).items.find((s) => s.id === 'fence-hb')!;
      clock.advance(45 * SECOND);
      const late = await t.store.schedules.complete(admin, 'fence-hb', { generation: third.claim!.generation });
      expect(late.nextDueAt).toBe(new Date(START + 3 * MINUTE).toISOString());
      await expect(
        t.store.schedules.complete(contextOf(memberPrincipal(['other'])), 'fence-hb', { generation: 3 }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('[schedules.claim-fenced] concurrent claimers split the due ticks: every tick has exactly one claimer', async () => {
      clock.set(START);
      await t.store.profiles.create(admin, 'race');
      await heartbeat('gw-race', 'race');
      for (let i = 0; i < 12; i++) {
        await chat(`race-${i}`, { profile: 'race', gateway: 'gw-race' });
        await t.store.schedules.create(admin, `race-${i}`, every(60, { id: `race-hb-${i}` }));
      }
      clock.advance(MINUTE);
      const claims = await Promise.all([1, 2, 3].map(() => claim('gw-race', 5)));
      const ids = claims.flatMap((page) => page.items.map((s) => s.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(12);
      expect(Math.max(...claims.map((page) => page.items.length))).toBeLessThanOrEqual(5);
    });

    it('[schedules.next-tick] an interval advances from its due time skipping missed ticks; cron goes to its next match after now', async () => {
      clock.set(START);
      await chat('tick', { gateway: 'gw-a' });
      await t.store.schedules.create(admin, 'tick', every(60, { id: 'tick-hb' }));
      await t.store.schedules.create(admin, 'tick', {
        id: 'tick-cron',
        kind: 'cron',
        cron: '*/10 * * * *',
        payload: {},
        enabled: true,
      });
      // The gateway was away for 3.5 intervals: one tick fires, then the schedule keeps its phase.
      clock.set(START + 4 * MINUTE + 30 * SECOND);
      const claimed = (await claim('gw-a', 100)).items.filter((s) => s.sessionId === 'tick');
      expect(claimed.map((s) => s.id).sort()).toEqual(['tick-hb']);
      const hb = await t.store.schedules.complete(admin, 'tick-hb', { generation: claimed[0].claim!.generation });
      expect(hb.nextDueAt).toBe(new Date(START + 5 * MINUTE).toISOString());
      clock.set(START + 25 * MINUTE + 5 * SECOND);
      const cron = (await claim('gw-a', 100)).items.find((s) => s.id === 'tick-cron')!;
      expect(cron.claim!.dueAt).toBe(new Date(START + 10 * MINUTE).toISOString());
      const next = await t.store.schedules.complete(admin, 'tick-cron', { generation: cron.claim!.generation });
      expect(next.nextDueAt).toBe(new Date(START + 30 * MINUTE).toISOString());
    });

    it('[schedules.deleted-with-session] deleting a session deletes its schedules in the same transaction; the receipt carries no payload', async () => {
      clock.set(START);
      await chat('del', { gateway: 'gw-a' });
      await t.store.schedules.create(
        admin,
        'del',
        every(60, { id: 'del-hb', payload: { secret: 'wake-up-text-xyz' } }),
      );
      const outcome = await t.store.deletion.deleteOne(
        admin,
        'del',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'del'),
      );
      expect(outcome.deletedIds).toEqual(['del']);
      await expect(t.store.schedules.complete(admin, 'del-hb', { generation: 1 })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      expect(await t.store.db.selectFrom('schedules').select('id').where('id', '=', 'del-hb').execute()).toEqual([]);
      expect(await scanForIds(t.store, ['del'])).toEqual([]);
      const receipt = await t.store.receipts.get(admin, outcome.receipt!.operationId);
      expect(JSON.stringify(receipt)).not.toContain('wake-up-text-xyz');
      expect(JSON.stringify(receipt)).not.toContain('del-hb');
    });

    it('[retention.spares-living] retention spares a session with an active schedule; a paused one goes with its session', async () => {
      clock.set(START);
      await t.store.profiles.create(admin, 'ret');
      for (const id of ['ret-live', 'ret-paused', 'ret-control']) {
        await chat(id, { profile: 'ret' });
        if (id !== 'ret-control') await t.store.schedules.create(admin, id, every(3600, { id: `${id}-hb` }));
      }
      // The gateway went away (an automatic end): its heartbeat is still active.
      await t.store.sessions.end(admin, 'ret-live', { reason: 'ws_orphan_reap' }, await tokensOf(t.store, 'ret-live'));
      for (const id of ['ret-paused', 'ret-control']) {
        await t.store.sessions.end(admin, id, { reason: 'cli_close' }, await tokensOf(t.store, id));
      }
      clock.advance(3 * 24 * 60 * MINUTE);
      const pass = await t.store.deletion.retentionPrune(admin, { olderThanDays: 1, profile: 'ret', dryRun: false });
      expect([...pass.deletedIds!].sort()).toEqual(['ret-control', 'ret-paused']);
      expect(await t.store.schedules.get(admin, 'ret-live', 'ret-live-hb')).toMatchObject({ active: true });
      expect(await t.store.db.selectFrom('schedules').select('id').where('id', '=', 'ret-paused-hb').execute()).toEqual(
        [],
      );
    });

    it('[schedules.profile-changes] a rename, a repair move and a profile delete keep schedules with their sessions', async () => {
      clock.set(START);
      await t.store.profiles.create(admin, 'pa');
      await t.store.profiles.create(admin, 'pb');
      await chat('pa-1', { profile: 'pa' });
      await chat('pa-2', { profile: 'pa' });
      await t.store.schedules.create(admin, 'pa-1', every(60, { id: 'pa-1-hb' }));
      await t.store.schedules.create(admin, 'pa-2', every(60, { id: 'pa-2-hb' }));

      const renamed = await t.store.profileAdmin.rename(admin, 'pa', 'pc');
      expect(renamed.counts.schedules).toBe(2);
      expect(await t.store.schedules.get(admin, 'pa-1', 'pa-1-hb')).toMatchObject({
        profile: 'pc',
        owner: { ownership: 'unowned' },
      });
      const members = contextOf(memberPrincipal(['pc']));
      expect((await t.store.schedules.listInProfile(members, { profile: 'pc', limit: 10 })).items).toHaveLength(2);

      await t.store.profileAdmin.move(admin, 'pa-2', 'pb');
      expect(await t.store.schedules.get(admin, 'pa-2', 'pa-2-hb')).toMatchObject({ profile: 'pb' });
      await expect(t.store.schedules.get(members, 'pa-2', 'pa-2-hb')).rejects.toBeInstanceOf(NotFoundError);

      await t.store.profileAdmin.delete(admin, 'pc', { deleteSessions: true, dryRun: false });
      expect(await t.store.db.selectFrom('schedules').select('id').where('id', '=', 'pa-1-hb').execute()).toEqual([]);
      expect(await t.store.schedules.get(admin, 'pa-2', 'pa-2-hb')).toMatchObject({ profile: 'pb' });
    });

    it('[schedules.set-aside] a due tick nobody may fire is set aside by the claims that pass it, and claimed within a minute once it may', async () => {
      clock.set(START);
      await t.store.profiles.create(admin, 'aside');
      await heartbeat('gw-aside', 'aside');
      await chat('aside-1', { profile: 'aside', gateway: 'gw-aside' });
      await t.store.schedules.create(admin, 'aside-1', every(60, { id: 'aside-hb' }));
      await t.store.sessions.update(admin, 'aside-1', { archived: true }, await tokensOf(t.store, 'aside-1'));
      clock.advance(2 * MINUTE);
      const wakeAtOf = async (id: string) =>
        Number(
          (await t.store.db.selectFrom('schedules').select('wake_at').where('id', '=', id).executeTakeFirst())!.wake_at,
        );
      const wakeAt = () => wakeAtOf('aside-hb');
      expect(await wakeAt()).toBe(START + MINUTE);
      expect((await claim('gw-aside')).items).toEqual([]);
      // Passed by the claim: set aside for a minute; its next tick is unchanged, and it is still reported due.
      expect(await wakeAt()).toBe(START + 2 * MINUTE + SET_ASIDE_MS);
      const paused = await t.store.schedules.get(admin, 'aside-1', 'aside-hb');
      expect(paused).toMatchObject({ nextDueAt: new Date(START + MINUTE).toISOString(), active: false });
      await t.store.sessions.update(admin, 'aside-1', { archived: false }, await tokensOf(t.store, 'aside-1'));
      expect((await t.store.schedules.due(admin, { profile: 'aside', limit: 10 })).items.map((s) => s.id)).toEqual([
        'aside-hb',
      ]);
      expect((await claim('gw-aside')).items).toEqual([]);
      clock.advance(SET_ASIDE_MS);
      const claimed = (await claim('gw-aside')).items;
      expect(claimed.map((s) => s.id)).toEqual(['aside-hb']);
      expect(claimed[0].claim!.dueAt).toBe(new Date(START + MINUTE).toISOString());

      // A gateway that stopped heartbeating: another gateway's claim sets its due ticks aside; they
      // are its own again within a minute of its next heartbeat.
      clock.set(START);
      await t.store.gateways.heartbeat(admin, 'gw-quiet', { profile: 'aside', host: 'h', pid: 2, startedAt: START });
      await chat('aside-2', { profile: 'aside', gateway: 'gw-quiet' });
      await t.store.schedules.create(admin, 'aside-2', every(60, { id: 'quiet-hb' }));
      clock.advance(3 * MINUTE);
      expect((await claim('gw-aside', 100)).items.map((s) => s.id)).not.toContain('quiet-hb');
      expect(await wakeAtOf('quiet-hb')).toBe(START + 3 * MINUTE + SET_ASIDE_MS);
      await t.store.gateways.heartbeat(admin, 'gw-quiet', { profile: 'aside', host: 'h', pid: 2, startedAt: START });
      clock.advance(SET_ASIDE_MS);
      await t.store.gateways.heartbeat(admin, 'gw-quiet', { profile: 'aside', host: 'h', pid: 2, startedAt: START });
      expect(
        (await t.store.schedules.claim(admin, { gatewayId: 'gw-quiet', leaseSeconds: 30, limit: 10 })).items.map(
          (s) => s.id,
        ),
      ).toEqual(['quiet-hb']);
    });

    it('[schedules.owner-follows-route] an archived chat that continues in a new session leaves its tick unroutable, never fired twice', async () => {
      clock.set(START);
      await chat('arch', { gateway: 'gw-a' });
      await t.store.schedules.create(admin, 'arch', every(60, { id: 'arch-hb' }));
      await t.store.sessions.update(admin, 'arch', { archived: true }, await tokensOf(t.store, 'arch'));
      // The chat speaks again: resolve skips the archived row, the gateway starts a new session and routes to it.
      await t.store.sessions.create(admin, {
        id: 'arch-new',
        profile: 'sch',
        source: 'telegram',
        sessionKey: 'agent:sch:telegram:dm:arch',
        gatewayId: 'gw-b',
      });
      await t.store.routes.set(admin, {
        profile: 'sch',
        sessionKey: 'agent:sch:telegram:dm:arch',
        sessionId: 'arch-new',
      });
      await t.store.sessions.update(admin, 'arch', { archived: false }, await tokensOf(t.store, 'arch'));
      clock.advance(2 * MINUTE);
      const schedule = await t.store.schedules.get(admin, 'arch', 'arch-hb');
      expect(schedule).toMatchObject({ active: true, owner: { ownership: 'unroutable', gatewayId: null } });
      const claimed = [...(await claim('gw-a', 100)).items, ...(await claim('gw-b', 100)).items];
      expect(claimed.map((s) => s.id)).not.toContain('arch-hb');
      expect(
        (await t.store.schedules.due(admin, { profile: 'sch', ownership: 'unroutable', limit: 200 })).items.map(
          (s) => s.id,
        ),
      ).toContain('arch-hb');
    });
  });
}
