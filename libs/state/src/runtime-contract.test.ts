import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionMovedEvent } from './domain/hook-registry.js';
import { RETENTION_JOB } from './services/retention.service.js';
import { routingKey } from './services/route.service.js';
import { ManualClock } from './shared/clock.js';
import type { OperationContext } from './shared/context.js';
import { ReopenNotPermittedError, SessionBusyError, StaleGenerationError, ValidationError } from './shared/errors.js';
import {
  adminPrincipal,
  aSession,
  contextOf,
  openTestStore,
  TEST_DIALECTS,
  type TestStore,
  tokensOf,
} from './testing/index.js';

/**
 * The gateway's runtime contract, rule by rule: each `describe` replays one defect the contract
 * had (docs/domain.md §4, §5, §6, §10), on both dialects.
 */
const admin = contextOf(adminPrincipal);
const dashboard: OperationContext = {
  principal: { ...adminPrincipal, kind: 'user', name: 'ada' },
  channel: 'dashboard',
};

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`gateway runtime contract on ${dialect}`, () => {
    let t: TestStore;
    const clock = new ManualClock(Date.UTC(2026, 10, 3));
    const chat = (id: string, chatId: string, extra: Record<string, unknown> = {}) => {
      clock.advance(60_000);
      return aSession(t.store, {
        id,
        profile: 'rc',
        source: 'telegram',
        sessionKey: routingKey('rc', 'telegram', 'dm', chatId),
        userId: 'u1',
        chatType: 'dm',
        chatId,
        messages: [{ role: 'user', content: `hello ${id}` }],
        ...extra,
      });
    };
    const resolve = (chatId: string, extra: Record<string, unknown> = {}) =>
      t.store.routes.resolve(admin, {
        profile: 'rc',
        source: 'telegram',
        userId: 'u1',
        chatType: 'dm',
        chatId,
        ...extra,
      });
    const end = async (id: string, reason: string) =>
      t.store.sessions.end(admin, id, { reason: reason as never }, await tokensOf(t.store, id));

    beforeAll(async () => {
      t = await openTestStore(dialect, { clock });
    });
    afterAll(async () => t?.close());

    describe('archive retires a chat', () => {
      it('[resolve.precedence] an accidentally ended row that the user archived is never recovered', async () => {
        await chat('arch-1', 'c-arch');
        await end('arch-1', 'agent_close');
        expect(await resolve('c-arch')).toMatchObject({ sessionId: 'arch-1', via: 'recovered' });
        await t.store.sessions.update(admin, 'arch-1', { archived: true }, await tokensOf(t.store, 'arch-1'));
        expect(await resolve('c-arch')).toMatchObject({ sessionId: null, via: 'none' });
      });

      it('[lineage.flags-whole-chain] [resolve.precedence] a route to an archived conversation is not followed, and its compression continuation is archived too', async () => {
        await chat('arch-2', 'c-arch2');
        await t.store.routes.set(admin, {
          profile: 'rc',
          sessionKey: routingKey('rc', 'telegram', 'dm', 'c-arch2'),
          sessionId: 'arch-2',
        });
        await t.store.sessions.update(admin, 'arch-2', { archived: true }, await tokensOf(t.store, 'arch-2'));
        expect(await resolve('c-arch2')).toMatchObject({ sessionId: null, via: 'none' });
        const next = await aSession(t.store, {
          id: 'arch-2b',
          profile: 'rc',
          source: 'telegram',
          chatType: 'dm',
          chatId: 'c-arch2',
          parentSessionId: 'arch-2',
          lineageKind: 'compression',
        });
        expect(next.archived).toBe(true);
        expect(await resolve('c-arch2')).toMatchObject({ sessionId: null, via: 'none' });
      });
    });

    describe('recovery by chat identity', () => {
      it('[resolve.precedence] finds a row that carries the chat tuple but no key', async () => {
        clock.advance(60_000);
        await aSession(t.store, {
          id: 'tuple-1',
          profile: 'rc',
          source: 'telegram',
          userId: 'u1',
          chatType: 'dm',
          chatId: 'c-tuple',
          messages: [{ role: 'user', content: 'no key' }],
        });
        expect(await resolve('c-tuple')).toMatchObject({ sessionId: 'tuple-1', via: 'recovered' });
        // Another user, thread or surface of the same chat id is another peer.
        expect(await resolve('c-tuple', { userId: 'u2' })).toMatchObject({ sessionId: null });
        expect(await resolve('c-tuple', { threadId: 't9' })).toMatchObject({ sessionId: null });
        expect(
          await t.store.routes.resolve(admin, { profile: 'rc', source: 'discord', chatType: 'dm', chatId: 'c-tuple' }),
        ).toMatchObject({ sessionId: null });
      });

      it('[resolve.precedence] finds a row whose key was written before a rename of the key format', async () => {
        await chat('tuple-2', 'c-rekey', { sessionKey: 'legacy:telegram:c-rekey' });
        await end('tuple-2', 'ws_orphan_reap');
        expect(await resolve('c-rekey')).toMatchObject({ sessionId: 'tuple-2', via: 'recovered' });
      });

      it('[resolve.precedence] an open row outranks a newer recoverable or handed-off one', async () => {
        await chat('rank-open', 'c-rank');
        await chat('rank-handed', 'c-rank');
        await t.store.handoff.request(admin, 'rank-handed', 'desktop', {});
        await t.store.handoff.claim(admin, 'rank-handed', {});
        await t.store.handoff.complete(admin, 'rank-handed', {});
        await end('rank-handed', 'cli_close');
        await chat('rank-accident', 'c-rank');
        await end('rank-accident', 'agent_close');
        expect(await resolve('c-rank')).toMatchObject({ sessionId: 'rank-open', via: 'recovered' });
        await end('rank-open', 'cli_close');
        expect(await resolve('c-rank')).toMatchObject({ sessionId: 'rank-accident', via: 'recovered' });
      });

      it('[lifecycle.reset-reasons] [resolve.precedence] a reset of the same peer after the candidate’s last activity still fences it', async () => {
        await chat('fence-old', 'c-fence');
        await end('fence-old', 'agent_close');
        await chat('fence-reset', 'c-fence', { sessionKey: undefined });
        await end('fence-reset', 'session_reset');
        expect(await resolve('c-fence')).toMatchObject({ sessionId: null, via: 'none' });
      });

      it('[session.routing-identity] a recovered row is re-stamped with the caller’s transport profile in the same transaction', async () => {
        await chat('stamp-1', 'c-stamp', { transportProfile: 'bot-old' });
        await end('stamp-1', 'agent_close');
        const before = await t.store.sessions.get(admin, 'stamp-1');
        expect(await resolve('c-stamp', { transportProfile: 'bot-new' })).toMatchObject({ via: 'recovered' });
        const after = await t.store.sessions.get(admin, 'stamp-1');
        expect(after).toMatchObject({ transportProfile: 'bot-new', revision: before.revision + 1 });
      });
    });

    describe('a deliberate close is reopened only by its routing transport or a dashboard user', () => {
      it('[messages.session-meta] [lifecycle.deliberate-close] refuses an anonymous reopen of a cli_close, allows the routing transport and the dashboard, and records it', async () => {
        await chat('close-1', 'c-close', { transportProfile: 'bot-a' });
        await end('close-1', 'cli_close');
        await expect(
          t.store.sessions.reopen(admin, 'close-1', {}, await tokensOf(t.store, 'close-1')),
        ).rejects.toBeInstanceOf(ReopenNotPermittedError);
        await expect(
          t.store.sessions.reopen(admin, 'close-1', { transportProfile: 'bot-b' }, await tokensOf(t.store, 'close-1')),
        ).rejects.toBeInstanceOf(ReopenNotPermittedError);
        const byTransport = await t.store.sessions.reopen(
          admin,
          'close-1',
          { transportProfile: 'bot-a' },
          await tokensOf(t.store, 'close-1'),
        );
        expect(byTransport.endedAt).toBeNull();
        await end('close-1', 'tui_close');
        const byPerson = await t.store.sessions.reopen(dashboard, 'close-1', {}, await tokensOf(t.store, 'close-1'));
        expect(byPerson.endedAt).toBeNull();
        const history = await t.store.messages.list(admin, 'close-1', {
          limit: 10,
          includeCompacted: true,
          includeHidden: false,
          includeInactive: false,
          order: 'oldest',
        });
        const meta = history.items.filter((message) => message.role === 'session_meta');
        expect(meta.map((message) => (message.content as { text: string }).text)).toEqual([
          'Reopened by transport bot-a after cli_close',
          'Reopened by ada (dashboard) after tui_close',
        ]);
      });

      it('[lifecycle.automatic-reasons] [lifecycle.deliberate-close] automatic ends stay freely reopenable', async () => {
        await chat('auto-1', 'c-auto');
        await end('auto-1', 'ws_disconnect');
        expect(
          (await t.store.sessions.reopen(admin, 'auto-1', {}, await tokensOf(t.store, 'auto-1'))).endedAt,
        ).toBeNull();
      });
    });

    describe('fencing is mandatory during a live lease', () => {
      it('[turns.lease-fencing] an append without the lease or the generation is refused while another holder’s turn is live', async () => {
        await chat('fence-turn', 'c-turn');
        const turn = await t.store.turns.begin(admin, 'fence-turn', { holder: 'worker-a', ttlSeconds: 60 });
        const message = { messages: [{ role: 'assistant' as const, content: 'sneaking in' }] };
        await expect(t.store.messages.append(admin, 'fence-turn', message, {})).rejects.toBeInstanceOf(
          SessionBusyError,
        );
        await expect(
          t.store.messages.append(admin, 'fence-turn', message, { turnId: 'not-the-live-turn' }),
        ).rejects.toBeInstanceOf(StaleGenerationError);
        await t.store.messages.append(admin, 'fence-turn', message, { turnId: turn.turnId });
        await t.store.messages.append(admin, 'fence-turn', message, { expectedGeneration: turn.generation });
        const s = await t.store.sessions.get(admin, 'fence-turn');
        await expect(
          t.store.sessions.end(admin, 'fence-turn', { reason: 'cli_close' }, { ifMatch: s.revision }),
        ).rejects.toBeInstanceOf(SessionBusyError);
        // Titles and flags are presentation: If-Match is enough.
        await t.store.sessions.update(admin, 'fence-turn', { pinned: true }, { ifMatch: s.revision });
      });

      it('[turns.lease-fencing] completing or renewing a stale turn answers stale_generation', async () => {
        await chat('stale-turn', 'c-stale');
        const first = await t.store.turns.begin(admin, 'stale-turn', { holder: 'worker-a', ttlSeconds: 5 });
        clock.advance(6_000);
        const second = await t.store.turns.begin(admin, 'stale-turn', { holder: 'worker-b', ttlSeconds: 60 });
        await expect(t.store.turns.complete(admin, 'stale-turn', first.turnId)).rejects.toBeInstanceOf(
          StaleGenerationError,
        );
        await expect(t.store.turns.renew(admin, 'stale-turn', first.turnId, { ttlSeconds: 5 })).rejects.toBeInstanceOf(
          StaleGenerationError,
        );
        await t.store.turns.complete(admin, 'stale-turn', second.turnId);
        // A retried completion of the latest turn is a no-op.
        await t.store.turns.complete(admin, 'stale-turn', second.turnId);
      });
    });

    describe('negative retention windows are refused by the state layer itself', () => {
      it('[retention.window-bounds] the services refuse a negative window and the store refuses to keep one', async () => {
        await chat('ret-1', 'c-ret');
        await end('ret-1', 'cli_close');
        await expect(
          t.store.deletion.retentionPrune(admin, { olderThanDays: -1, dryRun: false }),
        ).rejects.toBeInstanceOf(ValidationError);
        await expect(
          t.store.deletion.neverActivePrune(admin, { olderThanDays: -1, dryRun: false }),
        ).rejects.toBeInstanceOf(ValidationError);
        await expect(t.store.retention.put(admin, 'rc', -1)).rejects.toBeInstanceOf(ValidationError);
        await expect(
          sql`insert into retention_policies (profile, retention_days, updated_at) values ('rc', -1, 0)`.execute(
            t.store.db,
          ),
        ).rejects.toThrow(/check/i);
        expect((await t.store.sessions.get(admin, 'ret-1')).endedAt).not.toBeNull();
      });

      it('[retention.window-bounds] the scheduler skips (and reports) a stored negative policy instead of pruning a session that just ended', async () => {
        // A row written before the constraint existed.
        if (dialect === 'sqlite') {
          await sql`pragma ignore_check_constraints = 1`.execute(t.store.db);
          await sql`insert into retention_policies (profile, retention_days, updated_at) values ('rc', -1, 0)`.execute(
            t.store.db,
          );
          await sql`pragma ignore_check_constraints = 0`.execute(t.store.db);
        } else {
          await sql`alter table retention_policies drop constraint retention_policies_days_check`.execute(t.store.db);
          await sql`insert into retention_policies (profile, retention_days, updated_at) values ('rc', -1, 0)`.execute(
            t.store.db,
          );
          await sql`alter table retention_policies add constraint retention_policies_days_check check (retention_days >= 0) not valid`.execute(
            t.store.db,
          );
        }
        t.store.jobs.configure(RETENTION_JOB, 60 * 60 * 1000);
        const report = await t.store.jobs.runNow(RETENTION_JOB, 'test');
        t.store.jobs.configure(RETENTION_JOB, 0);
        expect(report).toMatchObject({ outcome: 'ran', summary: { deleted: 0, skipped: ['rc'] } });
        expect((await t.store.sessions.get(admin, 'ret-1')).endedAt).not.toBeNull();
        await sql`delete from retention_policies where profile = 'rc'`.execute(t.store.db);
      });
    });

    describe('a profile-repair move is not a deletion of content', () => {
      it('move observers hear the move; deletion observers hear the session leave its old profile', async () => {
        const deleted: string[] = [];
        const moved: SessionMovedEvent[] = [];
        const offDeleted = t.store.hooks.onSessionDeleted((event) => {
          if (event.reason === 'profile_repair' && event.profile === 'rc') deleted.push(...event.deletedIds);
        });
        const offMoved = t.store.hooks.onSessionMoved((event) => {
          moved.push(event);
        });
        await chat('mv-1', 'c-move');
        await t.store.profiles.create(admin, 'rc-target');
        await t.store.profileAdmin.move(admin, 'mv-1', 'rc-target');
        await t.store.hooks.idle();
        offDeleted();
        offMoved();
        expect(deleted).toEqual(['mv-1']);
        expect(moved).toEqual([
          expect.objectContaining({ fromProfile: 'rc', toProfile: 'rc-target', movedIds: ['mv-1'] }),
        ]);
      });
    });

    describe('provenance and transport', () => {
      it('[session.created-source] a compression child inherits the conversation root’s createdSource, not the parent’s current source', async () => {
        await chat('prov-1', 'c-prov');
        await t.store.sessions.update(admin, 'prov-1', { source: 'desktop' }, await tokensOf(t.store, 'prov-1'));
        const { child } = await t.store.lineage.compress(
          admin,
          'prov-1',
          { summary: 'so far', keepLastMessages: 0 },
          await tokensOf(t.store, 'prov-1'),
        );
        expect(child).toMatchObject({ source: 'desktop', createdSource: 'telegram' });
        const next = await t.store.lineage.compress(
          admin,
          child.id,
          { summary: 'later', keepLastMessages: 0 },
          await tokensOf(t.store, child.id),
        );
        expect(next.child.createdSource).toBe('telegram');
      });

      it('[session.routing-identity] transportProfile is re-stamped by a switch (reset) and by PATCH', async () => {
        await chat('tp-1', 'c-tp', { transportProfile: 'bot-a' });
        const { child } = await t.store.lineage.reset(
          admin,
          'tp-1',
          { reason: 'session_switch', transportProfile: 'bot-b' },
          await tokensOf(t.store, 'tp-1'),
        );
        expect(child.transportProfile).toBe('bot-b');
        const patched = await t.store.sessions.update(
          admin,
          child.id,
          { transportProfile: 'bot-c' },
          await tokensOf(t.store, child.id),
        );
        expect(patched.transportProfile).toBe('bot-c');
      });

      it('[deletion.never-races-compression] a delete never leaves a compression child of a deleted parent behind (delete vs in-flight compress)', async () => {
        await chat('race-root', 'c-race');
        const { child: tip } = await t.store.lineage.compress(
          admin,
          'race-root',
          { summary: 's1', keepLastMessages: 0, childId: 'race-tip' },
          await tokensOf(t.store, 'race-root'),
        );
        const rootTokens = await tokensOf(t.store, 'race-root');
        let reached!: () => void;
        const inFlight = new Promise<void>((resolve) => {
          reached = resolve;
        });
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        t.store.lineage.addContinuationHook({
          async onContinued(_tx, from) {
            if (from.id !== tip.id) return;
            reached();
            await gate;
          },
        });
        const compress = t.store.lineage.compress(
          admin,
          tip.id,
          { summary: 's2', keepLastMessages: 0, childId: 'race-next' },
          await tokensOf(t.store, tip.id),
        );
        await inFlight;
        const deletion = t.store.deletion.deleteOne(
          admin,
          'race-root',
          { includeCompressionChain: true, ifEmpty: false },
          rootTokens,
        );
        deletion.catch(() => undefined); // settled below; a quick refusal must not count as unhandled
        await new Promise((resolve) => setTimeout(resolve, 300));
        release();
        const [compressed, deleted] = await Promise.allSettled([compress, deletion]);
        const left = (await t.store.db.selectFrom('sessions').select('id').where('id', 'like', 'race-%').execute()).map(
          (row) => row.id,
        );
        if (deleted.status === 'fulfilled') {
          // The delete waited for the compress and took the whole conversation, new segment included.
          expect(compressed.status).toBe('fulfilled');
          expect(deleted.value.deletedIds.sort()).toEqual(['race-next', 'race-root', 'race-tip']);
          expect(left).toEqual([]);
        } else {
          // The delete refused while the compress was in flight; the conversation is whole.
          expect(deleted.reason).toBeInstanceOf(SessionBusyError);
          expect(compressed.status).toBe('fulfilled');
          expect(left.sort()).toEqual(['race-next', 'race-root', 'race-tip']);
        }
      });
    });

    describe('titles', () => {
      it('[session.titles] a user title over 100 characters is refused; an automatic one is cut with an ellipsis', async () => {
        await expect(chat('title-1', 'c-title', { title: 'x'.repeat(101) })).rejects.toBeInstanceOf(ValidationError);
        const derived = await chat('title-2', 'c-title2', { title: 'y'.repeat(150), titleSource: 'llm' });
        expect(Array.from(derived.title!)).toHaveLength(100);
        expect(derived.title!.endsWith('…')).toBe(true);
        await expect(
          t.store.sessions.update(admin, 'title-2', { title: 'z'.repeat(101) }, await tokensOf(t.store, 'title-2')),
        ).rejects.toBeInstanceOf(ValidationError);
      });
    });

    it('[storage.bounded-waits] keeps recovery, the handoff probe and the sweep on their own indexes, in order (no sort)', async () => {
      const queries = {
        sessions_key_recent_idx: `select id from sessions where profile = 'rc' and session_key = 'agent:rc:telegram:dm:c-x' order by last_activity_at desc, id desc limit 50`,
        sessions_peer_idx: `select id from sessions where profile = 'rc' and chat_id = 'c-tuple' and chat_type = 'dm' and (source = 'telegram' or created_source = 'telegram') and thread_id is null order by last_activity_at desc, id desc limit 50`,
        // The handoff probe and the orphan sweep read their few rows, never the ended majority.
        sessions_handoff_idx: `select id from sessions where handoff_state = 'pending' order by last_activity_at desc, id desc limit 1`,
        sessions_open_idx: `select s.id from sessions s left join gateways g on g.id = s.gateway_id where s.ended_at is null and (s.lease_expires_at is null or s.lease_expires_at <= 5) and s.last_activity_at < 3 order by s.last_activity_at limit 200`,
      };
      for (const [index, query] of Object.entries(queries)) {
        // A small test table makes a sequential scan cheapest on PostgreSQL: ask what it would use otherwise.
        const plan = await t.store.db.transaction().execute(async (trx) => {
          if (dialect === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
          const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
          return JSON.stringify((await sql.raw(explain + query).execute(trx)).rows);
        });
        expect(plan).toContain(index);
        expect(plan).not.toMatch(/TEMP B-TREE|Sort/i);
      }
    });
  });
}
