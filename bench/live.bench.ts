import { join } from 'node:path';
import type { BenchConfig } from './lib/config.js';
import { buildApi, createToken, startApi } from './lib/http.js';
import { fmtCount, fmtMs, log, type Report } from './lib/report.js';
import { scratchDir } from './lib/stores.js';
import { percentile } from './lib/timing.js';

/**
 * Figure 19: an open transcript's live feed under load — one API process on a SQLite file, 50
 * viewers holding `GET /v1/sessions/{id}/messages/watch` open on one session, while appends commit
 * one at a time (20–80 ms apart). Each viewer times each message's arrival; the delay counts from
 * when the append was sent (so it includes the append's own request and commit: an upper bound of
 * commit → seen) and, beside it, from when its answer came back (commit acknowledged → seen).
 */

const VIEWERS = 50;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p = (values: number[], q: number) => percentile(sorted(values), q);

/** The events of an SSE response as they arrive, each stamped when its chunk was read. */
async function* sse(response: Response): AsyncGenerator<{ event: string; data: string; at: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const at = performance.now();
    buffer += decoder.decode(value, { stream: true });
    for (let index = buffer.indexOf('\n\n'); index >= 0; index = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      yield {
        event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message',
        data: /^data: (.*)$/m.exec(block)?.[1] ?? '',
        at,
      };
    }
  }
}

export async function liveFeedDelay(report: Report, config: BenchConfig, root: string): Promise<void> {
  report.section(
    'Live transcript feed',
    `One API process on a SQLite file; ${VIEWERS} viewers hold the session's message feed (server-sent events) open while appends commit one at a time, 20–80 ms apart. “From the request” counts from when the append was sent (its own request and commit included); “from the answer” from when its 201 arrived.`,
  );
  buildApi(root);
  const databaseUrl = `file:${join(scratchDir(), 'live-feed.db')}`;
  const server = await startApi(root, databaseUrl);
  const token = createToken(root, databaseUrl);
  const base = `http://127.0.0.1:${server.port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const appends = config.quick ? 30 : 200;
  try {
    const created = await fetch(`${base}/v1/sessions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: 'live-bench', profile: 'bench', source: 'cli' }),
    });
    if (created.status !== 201) throw new Error(`create answered ${created.status}`);
    const viewers = Array.from({ length: VIEWERS }, () => {
      const abort = new AbortController();
      const arrivals = new Map<string, number>();
      let ready: () => void = () => undefined;
      const caughtUp = new Promise<void>((resolve) => {
        ready = resolve;
      });
      const done = (async () => {
        try {
          const response = await fetch(`${base}/v1/sessions/live-bench/messages/watch`, {
            headers,
            signal: abort.signal,
          });
          for await (const { event, data, at } of sse(response)) {
            if (event === 'bookmark') ready();
            if (event === 'message') arrivals.set((JSON.parse(data) as { content: string }).content, at);
          }
        } catch {
          // aborted
        }
      })();
      return { abort, arrivals, caughtUp, done };
    });
    await Promise.all(viewers.map((viewer) => viewer.caughtUp));
    const sent = new Map<string, number>();
    const answered = new Map<string, number>();
    for (let i = 0; i < appends; i++) {
      const content = `live-${i}`;
      sent.set(content, performance.now());
      const response = await fetch(`${base}/v1/sessions/live-bench/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ messages: [{ role: i % 2 ? 'assistant' : 'user', content }] }),
      });
      if (response.status !== 201) throw new Error(`append answered ${response.status}: ${await response.text()}`);
      answered.set(content, performance.now());
      await new Promise((resolve) => setTimeout(resolve, 20 + ((i * 37) % 60)));
    }
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && viewers.some((viewer) => viewer.arrivals.size < appends)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const viewer of viewers) viewer.abort.abort();
    await Promise.all(viewers.map((viewer) => viewer.done));
    const fromRequest: number[] = [];
    const fromAnswer: number[] = [];
    for (const viewer of viewers) {
      if (viewer.arrivals.size < appends)
        throw new Error(`a viewer saw ${viewer.arrivals.size} of ${appends} messages`);
      for (const [content, at] of viewer.arrivals) {
        fromRequest.push(at - sent.get(content)!);
        fromAnswer.push(Math.max(0, at - answered.get(content)!));
      }
    }
    const row = report.table(`Delay until each of ${VIEWERS} open transcripts shows an appended message`, [
      'viewers',
      'appends',
      'arrivals',
      'from the request p50',
      'p95',
      'max',
      'from the answer p50',
      'p95',
    ]);
    row([
      String(VIEWERS),
      fmtCount(appends),
      fmtCount(fromRequest.length),
      fmtMs(p(fromRequest, 50)),
      fmtMs(p(fromRequest, 95)),
      fmtMs(fromRequest.reduce((a, b) => Math.max(a, b), 0)),
      fmtMs(p(fromAnswer, 50)),
      fmtMs(p(fromAnswer, 95)),
    ]);
    const p95 = p(fromRequest, 95);
    report.target({
      figure: `19. live transcript feed (append sent → each of ${VIEWERS} open viewers sees it), one API process, SQLite`,
      ours: `${fmtMs(p(fromRequest, 50))} p50, ${fmtMs(p95)} p95`,
      ceiling: '—',
      ratio: '—',
      target: '≤ 1 s p95',
      met: p95 <= 1000,
    });
    log(`  live feed: ${fmtMs(p(fromRequest, 50))} p50, ${fmtMs(p95)} p95 over ${fromRequest.length} arrivals`);
  } finally {
    await server.stop();
  }
}
