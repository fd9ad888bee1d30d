import type { Message, Session } from '@statehouse/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/logger.js';
import { openStore } from '../store.js';
import { adminPrincipal, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { seedDemoData } from './demo-seed.js';

const admin = contextOf(adminPrincipal);
const DAY = 86_400_000;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`demo data on ${dialect}`, () => {
    let t: TestStore;
    const now = Date.UTC(2026, 10, 30, 15, 7);
    let sessions: Session[] = [];
    const transcripts = new Map<string, Message[]>();

    beforeAll(async () => {
      // The store reads "now" a minute after the seed's: the live figures (active now) do not depend
      // on when the suite runs (with the system clock they passed only shortly after the seed's own time).
      t = await openTestStore(dialect, { clock: new ManualClock(now + 60_000) });
      const report = await seedDemoData(t.url, { now });
      expect(report).toEqual({ sessions: 22, messages: expect.any(Number), deletions: 4 });
      const listed = await t.store.sessions.list(admin, {
        status: 'all',
        archived: 'include',
        includeChildren: true,
        includeHidden: true,
        limit: 200,
        order: 'recent',
      });
      // Listing projects chains onto tips: read every segment by id too.
      const ids = new Set(listed.items.map((item) => item.id));
      for (const id of ['demo-support-02', 'demo-support-02-c1']) ids.add(id);
      sessions = await Promise.all([...ids].map((id) => t.store.sessions.get(admin, id)));
      for (const session of sessions) {
        const page = await t.store.messages.list(admin, session.id, {
          limit: 1000,
          includeCompacted: true,
          includeHidden: true,
          includeInactive: false,
          order: 'oldest',
        });
        transcripts.set(session.id, page.items);
      }
    }, 60_000);
    afterAll(async () => t?.close());

    it('spreads coherent sessions over the last two weeks: every end after its start, nothing in the future', () => {
      expect(sessions).toHaveLength(22);
      for (const session of sessions) {
        const started = Date.parse(session.startedAt);
        expect(started, session.id).toBeGreaterThanOrEqual(now - 14 * DAY);
        expect(Date.parse(session.lastActivityAt), session.id).toBeLessThanOrEqual(now);
        if (session.endedAt) expect(Date.parse(session.endedAt), session.id).toBeGreaterThan(started);
        for (const message of transcripts.get(session.id)!) {
          expect(Date.parse(message.timestamp), `${session.id} #${message.id}`).toBeLessThanOrEqual(now);
        }
      }
      const days = new Set([...transcripts.values()].flat().map((message) => message.timestamp.slice(0, 10)));
      expect(days.size).toBeGreaterThanOrEqual(10);
      // One conversation runs across midnight (UTC): day separators have something to separate.
      const crossing = [...transcripts.values()].filter(
        (messages) => new Set(messages.map((message) => message.timestamp.slice(0, 10))).size > 1,
      );
      expect(crossing.length).toBeGreaterThanOrEqual(1);
    });

    it('has usage that matches the messages: output tokens are the replies’ token counts', () => {
      const copies = new Set(['demo-support-02-c1', 'demo-support-02-c2', 'demo-support-02-branch']);
      let checked = 0;
      for (const session of sessions) {
        if (copies.has(session.id)) continue;
        const replies = transcripts
          .get(session.id)!
          .filter((message) => message.role === 'assistant' && message.active);
        const output = replies.reduce((sum, message) => sum + (message.tokenCount ?? 0), 0);
        expect(session.outputTokens, session.id).toBe(output);
        expect(session.inputTokens, session.id).toBeGreaterThan(0);
        expect(session.estimatedCostUsd, session.id).toBeGreaterThan(0);
        checked++;
      }
      expect(checked).toBe(19);
      expect(new Set(sessions.map((session) => session.model)).size).toBeGreaterThanOrEqual(4);
      expect(new Set(sessions.map((session) => session.source)).size).toBeGreaterThanOrEqual(7);
    });

    it('keeps what the browser tests rely on', () => {
      const byId = new Map(sessions.map((session) => [session.id, session]));
      expect(byId.get('demo-support-07')).toMatchObject({
        source: 'discord',
        title: 'Customer asks about data export (support)',
      });
      expect(sessions.filter((s) => s.profile === 'support' && s.source === 'discord')).toHaveLength(2);
      expect(sessions.filter((s) => s.profile === 'support')).toHaveLength(11);
      expect(byId.get('demo-default-01-research')).toMatchObject({
        parentSessionId: 'demo-default-01',
        lineageKind: 'delegate',
      });
      expect(byId.get('demo-support-02-c2')).toMatchObject({
        parentSessionId: 'demo-support-02-c1',
        lineageKind: 'compression',
      });
      expect(byId.get('demo-support-02-branch')?.title).toBe('Postmortem — executive summary');
      // The session page's runtime card has something to show (docs/domain.md §2.2.11, §12).
      expect(byId.get('demo-default-01')?.toolNames).toContain('delegate_task');
      expect(byId.get('demo-support-02-c2')?.compressionRetryAfter).not.toBeNull();
      expect(transcripts.get('demo-support-07')!.some((m) => m.displayKind === 'hidden')).toBe(true);
      expect(
        [...transcripts.values()].flat().some((m) => typeof m.content === 'string' && m.content.includes('会议')),
      ).toBe(true);
    });

    it('writes Markdown with a list, fenced code and a table in some replies', () => {
      const replies = [...transcripts.values()]
        .flat()
        .filter((m) => m.role === 'assistant' && typeof m.content === 'string')
        .map((m) => m.content as string);
      expect(replies.some((text) => /```ts\n[\s\S]+\n```/.test(text))).toBe(true);
      expect(replies.some((text) => text.includes('| --- |'))).toBe(true);
      expect(replies.some((text) => /\n1\. /.test(text) && text.includes('**'))).toBe(true);
    });

    it('gives the overview figures: usage equal to the sessions’ counters, live sessions, deletions by origin', async () => {
      const from = new Date(now - 15 * DAY).toISOString();
      const to = new Date(now + 60_000).toISOString();
      const summary = await t.store.stats.summary(admin, { from, to });
      const input = sessions.reduce((sum, s) => sum + s.inputTokens, 0);
      const output = sessions.reduce((sum, s) => sum + s.outputTokens, 0);
      expect(summary.usage.inputTokens).toBe(input);
      expect(summary.usage.outputTokens).toBe(output);
      expect(summary.usage.sessions).toBe(22);
      expect(summary.usage.conversations).toBe(19);
      expect(summary.activeNow.sessions).toBeGreaterThanOrEqual(2);
      expect(summary.deletions).toMatchObject({ operations: 4, sessions: 6 });
      const deletions = await t.store.stats.deletionsOverTime(admin, {
        from: new Date(now - 14 * DAY).toISOString(),
        bucket: 'day',
        groupBy: 'origin',
      });
      expect(deletions.groups.map((g) => g.key).sort()).toEqual(
        ['empty_sweep', 'ghost_prune', 'user_api', 'user_dashboard'].sort(),
      );
      expect(deletions.buckets.filter((b) => b.total.operations > 0).length).toBe(4);
      const usage = await t.store.stats.usageOverTime(admin, {
        from: new Date(now - 14 * DAY).toISOString(),
        bucket: 'day',
        groupBy: 'model',
      });
      expect(usage.groups.map((g) => g.key).sort()).toEqual(
        ['claude-sonnet-4.5', 'gemini-2.5-pro', 'gpt-5', 'llama-3.3-70b'].sort(),
      );
      expect(usage.buckets.filter((b) => b.total.messages > 0).length).toBeGreaterThanOrEqual(10);
    });

    it('is coherent with the gateway rules: the liveness sweep right after start ends nothing', async () => {
      const open = sessions.filter((session) => session.endedAt === null).map((session) => session.id);
      // The live conversations (minutes old) are open; everything that went quiet ended properly.
      expect(open.length).toBeGreaterThanOrEqual(2);
      for (const session of sessions) {
        if (session.endedAt === null) expect(Date.parse(session.lastActivityAt), session.id).toBeGreaterThan(now - DAY);
        else expect(session.endReason, session.id).not.toBe('startup_orphan_reap');
      }
      // A new store starts its sweep soon after seeding, with the default windows (orphans: rows
      // of no gateway idle for a day, or of a silent gateway).
      const started = await openStore({
        url: t.url,
        clock: new ManualClock(now + 60_000),
        logger: silentLogger,
        migrate: false,
      });
      try {
        const sweep = await started.gateways.sweep('demo-check');
        expect(sweep).toMatchObject({ ran: true, reapedIds: [] });
        const after = await Promise.all(open.map((id) => started.sessions.get(admin, id)));
        expect(after.filter((session) => session.endedAt !== null).map((session) => session.id)).toEqual([]);
      } finally {
        await started.close();
      }
    });
  });

  describe.skipIf(!available)(`demo data on ${dialect}, seeded after the first administrator exists`, () => {
    it('names that administrator as the actor of the dashboard deletion, not "the system"', async () => {
      const t = await openTestStore(dialect);
      try {
        await t.store.auth.ensureInitialAdmin('demo-admin-password-1');
        await seedDemoData(t.url);
        const receipts = await t.store.receipts.list(admin, { after: 0, limit: 100 });
        const byOrigin = new Map(receipts.items.map((receipt) => [receipt.origin, receipt.actor]));
        const [person] = await t.store.auth.listUsers(admin);
        expect(byOrigin.get('user_dashboard')).toEqual({ kind: 'user', id: person.id });
        expect(byOrigin.get('empty_sweep')?.kind).toBe('system');
      } finally {
        await t.close();
      }
    }, 60_000);
  });
}
