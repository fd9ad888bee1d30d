import { beforeAll, describe, expect, it } from 'vitest';
import { asText, TEST_DIALECTS, useApi } from './harness.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(
    `sessions sorts, counter filters, exports and stats periods over HTTP on ${dialect}`,
    () => {
      const { api, admin } = useApi(dialect);
      /** Conversations with 1–6 messages and costs that do not follow the message counts. */
      const specs = [
        { id: 'so-a', messages: 1, cost: 0.5, tokens: 300 },
        { id: 'so-b', messages: 6, cost: 0.1, tokens: 100 },
        { id: 'so-c', messages: 3, cost: 2.25, tokens: 5000 },
        { id: 'so-d', messages: 4, cost: 0.75, tokens: 50 },
        { id: 'so-e', messages: 2, cost: 1.5, tokens: 700 },
      ];

      beforeAll(async () => {
        for (const spec of specs) {
          const created = await api
            .http()
            .post('/v1/sessions')
            .set(admin)
            .send({ id: spec.id, profile: 'sorts', source: 'cli', title: `Title | ${spec.id}` });
          expect(created.status).toBe(201);
          const appended = await api
            .http()
            .post(`/v1/sessions/${spec.id}/messages`)
            .set(admin)
            .send({
              messages: Array.from({ length: spec.messages }, (_, i) => ({
                role: i % 2 ? 'assistant' : 'user',
                content: `line ${i} of ${spec.id}`,
              })),
              usage: { inputTokens: spec.tokens, outputTokens: 0, estimatedCostUsd: spec.cost },
            });
          expect(appended.status).toBeLessThan(300);
        }
      });

      const listIds = async (query: string) => {
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const response = await api
            .http()
            .get(`/v1/sessions?profile=sorts&limit=2&${query}${cursor ? `&cursor=${cursor}` : ''}`)
            .set(admin);
          expect(response.status).toBe(200);
          ids.push(...response.body.items.map((item: { id: string }) => item.id));
          cursor = response.body.nextCursor;
        } while (cursor);
        return ids;
      };

      it('sorts by messages, cost and tokens with cursors, and filters by counters', async () => {
        expect(await listIds('order=messages')).toEqual(['so-b', 'so-d', 'so-c', 'so-e', 'so-a']);
        expect(await listIds('order=cost')).toEqual(['so-c', 'so-e', 'so-d', 'so-a', 'so-b']);
        expect(await listIds('order=tokens')).toEqual(['so-c', 'so-e', 'so-a', 'so-b', 'so-d']);
        expect(await listIds('order=cost&minCostUsd=0.6&maxMessages=3')).toEqual(['so-c', 'so-e']);
        expect(await listIds('order=messages&minMessages=3&maxCostUsd=1')).toEqual(['so-b', 'so-d']);
        const refused = await api.http().get('/v1/sessions?order=size').set(admin);
        expect(refused.status).toBe(400);
      });

      it('exports the filtered list in its order as JSON lines and as a Markdown table, streamed', async () => {
        const jsonl = await api
          .http()
          .get('/v1/sessions/export?profile=sorts&order=cost&minCostUsd=0.6')
          .set(admin)
          .buffer(true)
          .parse(asText);
        expect(jsonl.status).toBe(200);
        expect(jsonl.headers['content-type']).toMatch(/application\/x-ndjson/);
        expect(jsonl.headers['content-disposition']).toBe('attachment; filename="sessions.jsonl"');
        const rows = (jsonl.body as string)
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(rows.map((row) => row.id)).toEqual(['so-c', 'so-e', 'so-d']);
        expect(rows[0].conversationUsage.estimatedCostUsd).toBe(2.25);
        const markdown = await api
          .http()
          .get('/v1/sessions/export?profile=sorts&order=messages&format=markdown')
          .set(admin)
          .buffer(true)
          .parse(asText);
        expect(markdown.status).toBe(200);
        expect(markdown.headers['content-type']).toMatch(/text\/markdown/);
        expect(markdown.headers['content-disposition']).toBe('attachment; filename="sessions.md"');
        const lines = (markdown.body as string).trim().split('\n');
        expect(lines[0]).toMatch(/^\| id \| title \|/);
        expect(lines).toHaveLength(2 + specs.length);
        // The pipe in the title is escaped, so the table keeps its columns.
        expect(lines[2]).toContain('| so-b | Title \\| so-b | sorts | cli |');
        const refused = await api.http().get('/v1/sessions/export?format=pdf').set(admin);
        expect(refused.status).toBe(400);
      });

      it('exports one conversation as Markdown', async () => {
        const response = await api
          .http()
          .get('/v1/sessions/so-c/export?format=markdown')
          .set(admin)
          .buffer(true)
          .parse(asText);
        expect(response.status).toBe(200);
        expect(response.headers['content-disposition']).toBe('attachment; filename="so-c.md"');
        const body = response.body as string;
        expect(body.startsWith('# Title | so-c\n')).toBe(true);
        expect(body.match(/^## (user|assistant) · /gm)).toHaveLength(3);
        expect(body).toContain('line 2 of so-c');
        expect((await api.http().get('/v1/sessions/nope/export?format=markdown').set(admin)).status).toBe(404);
      });

      it('answers stats in a named time zone with week and month buckets, and the extent', async () => {
        const extent = await api.http().get('/v1/stats/extent?profile=sorts').set(admin);
        expect(extent.status).toBe(200);
        expect(extent.body.first).toMatch(/T00:00:00.000Z$/);
        const usage = await api
          .http()
          .get(`/v1/stats/usage?profile=sorts&bucket=month&timeZone=Europe/Paris&from=${extent.body.first}`)
          .set(admin);
        expect(usage.status).toBe(200);
        expect(usage.body).toMatchObject({ bucket: 'month', timeZone: 'Europe/Paris' });
        expect(usage.body.totals.messages).toBe(16);
        const refused = await api.http().get('/v1/stats/usage?timeZone=Nowhere/Else').set(admin);
        expect(refused.status).toBe(400);
      });
    },
  );
}
