import { sql } from 'kysely';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { JobLeaseRepository } from '../repositories/job-lease.repository.js';
import { ConflictError, ForbiddenError } from '../shared/errors.js';
import { adminPrincipal, contextOf, memberPrincipal, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { SEARCH_REBUILD_JOB } from './search-index.service.js';

const admin = contextOf(adminPrincipal);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`search index check and rebuild on ${dialect}`, () => {
    const t = useTestStore(dialect);

    beforeAll(async () => {
      await t.store.sessions.create(admin, {
        id: 'ix',
        profile: 'p',
        source: 'cli',
        messages: [
          { role: 'user', content: 'porcupine migration notes' },
          { role: 'assistant', content: 'hidden porcupine plan', displayKind: 'hidden' },
          { role: 'tool', toolName: 'grep', content: 'porcupine in tool output' },
          { role: 'user', content: '多语言 搜索 测试' },
        ],
      });
      await t.store.sessions.create(admin, {
        id: 'ix-cron',
        profile: 'p',
        source: 'cron',
        messages: [{ role: 'assistant', content: 'cron porcupine' }],
      });
    });

    it('[search.check-rebuild] reports both indexes consistent with the messages', async () => {
      const status = await t.store.searchIndex.status(admin, true);
      expect(status).toMatchObject({ status: 'ready', degraded: false, integrity: { ok: true } });
      expect(status.integrity!.indexes.map((index) => [index.name, index.ok])).toEqual([
        ['word', true],
        ['substring', true],
      ]);
      expect(status.integrity!.indexes[0].expectedRows).toBe(4);
      expect(status.integrity!.indexes[1].expectedRows).toBe(2);
      await expect(t.store.searchIndex.status(contextOf(memberPrincipal(['p'])), false)).rejects.toBeInstanceOf(
        ForbiddenError,
      );
    });

    if (dialect === 'sqlite') {
      it('[search.check-rebuild] detects a corrupted index, and a rebuild repairs it', async () => {
        const [message] = (await t.store.search.search(admin, { q: 'migration', mode: 'word', limit: 5 })).items;
        // Postings lost behind the table's back: the message no longer answers a search.
        await sql`insert into messages_fts(messages_fts, rowid, content, tool_name, tool_calls) values ('delete', ${message.messageId}, 'porcupine migration notes', null, null)`.execute(
          t.store.db,
        );
        expect((await t.store.search.search(admin, { q: 'migration', mode: 'word', limit: 5 })).items).toEqual([]);
        const broken = await t.store.searchIndex.status(admin, true);
        expect(broken.integrity).toMatchObject({ ok: false });
        expect(broken.integrity!.indexes[0].mismatchedTerms).toBeGreaterThan(0);
        await t.store.searchIndex.rebuild(admin, 'test-holder');
        await t.store.searchIndex.idle();
        const repaired = await t.store.searchIndex.status(admin, true);
        expect((await t.store.search.search(admin, { q: 'migration', mode: 'word', limit: 5 })).items).toHaveLength(1);
        expect(repaired).toMatchObject({ status: 'ready', integrity: { ok: true }, lastRebuild: { error: null } });
        expect(repaired.lastRebuild!.finishedAt).not.toBeNull();
      });

      it('[search.check-rebuild] says degraded while the index is unusable, searches by scan, and recovers after a rebuild', async () => {
        await sql`drop table messages_trgm`.execute(t.store.db);
        await sql`drop table messages_fts`.execute(t.store.db);
        expect((await t.store.searchIndex.status(admin, false)).degraded).toBe(true);
        const scanned = await t.store.search.search(admin, { q: 'porcupine', mode: 'word', limit: 5 });
        expect(scanned.degraded).toBe(true);
        expect(scanned.items.map((hit) => hit.messageId).length).toBeGreaterThan(0);
        await t.store.searchIndex.rebuild(admin, 'test-holder');
        await t.store.searchIndex.idle();
        expect((await t.store.searchIndex.status(admin, false)).degraded).toBe(false);
        const indexed = await t.store.search.search(admin, { q: 'porcupine', mode: 'word', limit: 5 });
        expect(indexed).toMatchObject({ degraded: false });
        // The default scope leaves out the cron session and the tool output; asking brings them in.
        expect(indexed.items.map((hit) => hit.role)).toEqual(['user']);
        const everything = await t.store.search.search(admin, {
          q: 'porcupine',
          mode: 'word',
          limit: 5,
          excludeSource: [],
        });
        expect(everything.items.map((hit) => hit.role).sort()).toEqual(['assistant', 'user']);
        const tools = await t.store.search.search(admin, { q: 'porcupine', mode: 'word', limit: 5, role: 'tool' });
        expect(tools.items.map((hit) => hit.role)).toEqual(['tool']);
        expect((await t.store.search.search(admin, { q: '语言', mode: 'substring', limit: 5 })).items).toHaveLength(1);
      });
    }

    it('[search.check-rebuild] admits one rebuild at a time', async () => {
      // Two processes ask at once: whichever the database admits first runs, the other is refused.
      // On PostgreSQL the admitted run (two REINDEX CONCURRENTLY of five rows) could finish and
      // release its lease before the other request was admitted on a loaded machine — then both
      // were rightly admitted, one after the other. A writer's lock on `messages` held meanwhile
      // keeps the admitted run inside its REINDEX (it waits for writers) until both have answered.
      const writer = dialect === 'postgres' ? new pg.Client({ connectionString: t.url }) : undefined;
      if (writer) {
        await writer.connect();
        await writer.query('begin');
        await writer.query('lock table messages in row exclusive mode');
      }
      let a: PromiseSettledResult<{ status: string }>;
      let b: PromiseSettledResult<{ status: string }>;
      try {
        [a, b] = await Promise.allSettled([
          t.store.searchIndex.rebuild(admin, 'process-a'),
          t.store.searchIndex.rebuild(admin, 'process-b'),
        ]);
        // Held: the admitted run is still going when both have answered.
        if (writer) expect((await t.store.searchIndex.status(admin, false)).status).toBe('rebuilding');
      } finally {
        await writer?.query('rollback');
        await writer?.end();
      }
      const admitted = [a, b].filter((result) => result.status === 'fulfilled');
      const refused = [a, b].filter((result) => result.status === 'rejected');
      expect(admitted).toHaveLength(1);
      expect((admitted[0] as PromiseFulfilledResult<{ status: string }>).value.status).toBe('rebuilding');
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
      await t.store.searchIndex.idle();
      expect((await t.store.searchIndex.status(admin, true)).integrity).toMatchObject({ ok: true });
      expect(
        (await t.store.search.search(admin, { q: 'porcupine', mode: 'word', limit: 5 })).items.length,
      ).toBeGreaterThan(0);
    });

    it('[search.check-rebuild] is single-flight for two requests of one process (the same process holder), and the lease names the run', async () => {
      // Two admin requests handled by one API process present the same process holder. The lease
      // was re-entrant by holder: a second rebuild started beside the first, and the first to
      // finish released the lease under the other. A run of `host:1:same` holds it now:
      const leases = new JobLeaseRepository();
      expect(await leases.acquire(t.store.db, SEARCH_REBUILD_JOB, 'host:1:same', Date.now(), 60_000)).toBe(true);
      await expect(t.store.searchIndex.rebuild(admin, 'host:1:same')).rejects.toBeInstanceOf(ConflictError);
      expect(await t.store.searchIndex.resumeAbandoned('host:1:same')).toBe(false);
      expect((await leases.find(t.store.db, SEARCH_REBUILD_JOB))?.holder).toBe('host:1:same');
      await leases.release(t.store.db, SEARCH_REBUILD_JOB, 'host:1:same');

      await t.store.searchIndex.rebuild(admin, 'host:1:same');
      const running = await leases.find(t.store.db, SEARCH_REBUILD_JOB);
      expect(running?.holder).toMatch(/^host:1:same#rebuild-/);
      await t.store.searchIndex.idle();
      // Released by the run that held it.
      expect(Number((await leases.find(t.store.db, SEARCH_REBUILD_JOB))?.expires_at)).toBe(0);
      expect((await t.store.searchIndex.status(admin, true)).integrity).toMatchObject({ ok: true });
    });
  });
}
