import { describe, expect, it } from 'vitest';
import { ConversationGenerationRepository } from '../repositories/conversation-generation.repository.js';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, contextOf, endSession, TEST_DIALECTS, tokensOf } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const generations = new ConversationGenerationRepository();

/**
 * What a continuation keeps (docs/domain.md §2.5, §3.6, §7.1): the transport profile, the
 * substring index, and the conversation generation — on both dialects.
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`continuation rules on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 4));
    const t = useTestStore(dialect, { clock });

    const keyOf = (chat: string, source = 'telegram') => `agent:cont:${source}:dm:${chat}`;
    const chat = (id: string, chatId: string | null, extra: Record<string, unknown> = {}) => {
      clock.advance(60_000);
      return t.store.sessions.create(admin, {
        id,
        profile: 'cont',
        source: 'telegram',
        ...(chatId === null ? {} : { sessionKey: keyOf(chatId), chatType: 'dm', chatId }),
        messages: [
          { role: 'user', content: `first words of ${id}` },
          { role: 'assistant', content: `an answer in ${id}` },
        ],
        ...extra,
      });
    };
    const end = (id: string, reason: string) => endSession(t.store, id, reason);
    const compress = async (id: string, childId: string) => {
      clock.advance(1000);
      return t.store.lineage.compress(
        admin,
        id,
        { summary: `summary of ${id}`, keepLastMessages: 1, childId },
        await tokensOf(t.store, id),
      );
    };
    const generationRows = async () =>
      Number(
        (
          await t.store.db
            .selectFrom('conversation_generations')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('[lineage.compress] a compression child inherits the transport profile', async () => {
      await chat('tp-root', 'tp', { transportProfile: 'bot-blue' });
      const { child } = await compress('tp-root', 'tp-child');
      expect(child.transportProfile).toBe('bot-blue');
      expect((await t.store.sessions.get(admin, 'tp-child')).transportProfile).toBe('bot-blue');
      // And the next segment too: the whole chain is delivered by the same bot.
      const { child: third } = await compress('tp-child', 'tp-third');
      expect(third.transportProfile).toBe('bot-blue');
    });

    it('[search.indexes] compression continuations of an ordinary session stay substring-indexed', async () => {
      await chat('sub-root', 'sub', {
        messages: [
          { role: 'user', content: 'the first fragment zorblatquix of the chat' },
          { role: 'assistant', content: 'retained tail with 记忆断裂问题 inside' },
        ],
      });
      await compress('sub-root', 'sub-child');
      await t.store.messages.append(
        admin,
        'sub-child',
        { messages: [{ role: 'user', content: 'later words plumbfrazzle in the continuation' }] },
        {},
      );
      const rows = await t.store.db
        .selectFrom('messages')
        .select(['role', 'display_kind', 'substring_indexed'])
        .where('session_id', '=', 'sub-child')
        .orderBy('id')
        .execute();
      expect(rows.map((row) => [row.role, row.display_kind, Number(row.substring_indexed)])).toEqual([
        ['system', 'compaction_summary', 1],
        ['assistant', 'visible', 1],
        ['user', 'visible', 1],
      ]);
      const find = async (q: string) =>
        (await t.store.search.search(admin, { q, mode: 'substring', limit: 10 })).items.map((hit) => hit.sessionId);
      expect(await find('记忆断裂')).toContain('sub-child');
      expect(await find('frazzl')).toEqual(['sub-child']);
      expect(await find('mary of sub-roo')).toEqual(['sub-child']);
    });

    describe('the conversation generation', () => {
      it('[generations.reset-only] does not advance on a compression or on accidental and automatic ends; a reset-class end advances it', async () => {
        await chat('gen-1', 'gen');
        const key = keyOf('gen');
        const start = await generations.current(t.store.db, 'telegram', key);
        await compress('gen-1', 'gen-2');
        expect(await generations.current(t.store.db, 'telegram', key)).toBe(start);
        await end('gen-2', 'agent_close');
        expect(await generations.current(t.store.db, 'telegram', key)).toBe(start);
        await chat('gen-3', 'gen');
        await end('gen-3', 'tui_shutdown');
        await chat('gen-4', 'gen');
        await end('gen-4', 'startup_orphan_reap');
        expect(await generations.current(t.store.db, 'telegram', key)).toBe(start);
        await chat('gen-5', 'gen');
        await end('gen-5', 'idle');
        expect(await generations.current(t.store.db, 'telegram', key)).toBe(start + 1);
        // Ending it again changes nothing (first end wins): the boundary counts once.
        await end('gen-5', 'daily');
        expect(await generations.current(t.store.db, 'telegram', key)).toBe(start + 1);
      });

      it('[generations.reset-only] nothing advances for an unkeyed row', async () => {
        await chat('gen-unkeyed', null);
        const before = await generationRows();
        await end('gen-unkeyed', 'session_reset');
        await chat('gen-unkeyed-2', null);
        await t.store.lineage.reset(
          admin,
          'gen-unkeyed-2',
          { reason: 'session_switch' },
          await tokensOf(t.store, 'gen-unkeyed-2'),
        );
        expect(await generationRows()).toBe(before);
      });

      it('[generations.reset-only] is scoped per (createdSource, key): another surface on the same key and a later source change keep their own', async () => {
        const key = keyOf('scoped');
        await chat('scope-tg', 'scoped');
        await chat('scope-dc', null, { source: 'discord', sessionKey: key, chatType: 'dm', chatId: 'scoped' });
        await end('scope-tg', 'session_reset');
        expect(await generations.current(t.store.db, 'telegram', key)).toBe(1);
        expect(await generations.current(t.store.db, 'discord', key)).toBe(0);
        // The live surface moves to desktop; the counter stays the conversation's first surface's.
        await chat('scope-moved', 'scoped');
        await t.store.sessions.update(
          admin,
          'scope-moved',
          { source: 'desktop' },
          await tokensOf(t.store, 'scope-moved'),
        );
        await end('scope-moved', 'idle');
        expect(await generations.current(t.store.db, 'telegram', key)).toBe(2);
        expect(await generations.current(t.store.db, 'desktop', key)).toBe(0);
        await end('scope-dc', 'daily');
        expect(await generations.current(t.store.db, 'discord', key)).toBe(1);
        expect(await generations.current(t.store.db, 'telegram', key)).toBe(2);
      });
    });
  });
}
