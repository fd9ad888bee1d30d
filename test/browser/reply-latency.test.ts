import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { apiClient, expectAccessible, signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * Turn latency and per-message figures (docs/stats.md, "Reply latency"): a transcript says how
 * long each reply took and what its call cost; the overview's "Reply latency" card gives p50/p95
 * per model and per source; and a message number the view leaves out (a hidden first message) is
 * named, not skipped silently.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;

const url = (path: string) => `${stack.webUrl}${path}`;
const WAIT = { timeout: 15_000 };
const SETUP_MS = 180_000;

async function apiJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await api(path, init);
  expect(response.status, path).toBeLessThan(300);
  return (await response.json()) as T;
}

describe('reply latency, per-message cost and message numbers in a browser', () => {
  beforeAll(async () => {
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack);

    const base = Date.now() - 120_000;
    const at = (offset: number) => new Date(base + offset).toISOString();
    // #1 is hidden scaffolding the reader does not see; #2 the question, #3 its answer 1.5 s on.
    await apiJson('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: 'e2e-latency',
        profile: 'default',
        source: 'e2e-surface',
        model: 'latency-model-e2e',
        title: 'Latency figures',
        messages: [
          { role: 'user', content: 'You are terse.', displayKind: 'hidden', timestamp: at(-1_000) },
          { role: 'user', content: 'How fast are you?', timestamp: at(0) },
        ],
      }),
    });
    await apiJson('/v1/sessions/e2e-latency/messages', {
      method: 'POST',
      body: JSON.stringify({
        messages: [{ role: 'assistant', content: 'Fast enough.', timestamp: at(1_500) }],
        usage: { inputTokens: 120, outputTokens: 8, estimatedCostUsd: 0.0125 },
      }),
    });
    // A second exchange, answered in 4 s without a reported cost.
    await apiJson('/v1/sessions/e2e-latency/messages', {
      method: 'POST',
      body: JSON.stringify({
        messages: [
          { role: 'user', content: 'And now?', timestamp: at(10_000) },
          { role: 'assistant', content: 'Slower.', timestamp: at(14_000) },
        ],
      }),
    });
  }, SETUP_MS);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('a transcript shows each reply’s latency and cost, and names the hidden #1 instead of starting at #2', async () => {
    await page.goto(url('/sessions/e2e-latency'));
    const messages = page.getByRole('list', { name: 'Messages' });
    const replies = messages.locator('article[data-role="assistant"]');
    await expect.poll(() => replies.count(), WAIT).toBe(2);
    expect(await replies.nth(0).locator('[data-figure="reply-latency"]').textContent()).toBe('replied in 1.5 s');
    expect(await replies.nth(0).locator('[data-figure="cost"]').textContent()).toBe('cost $0.0125');
    expect(await replies.nth(1).locator('[data-figure="reply-latency"]').textContent()).toBe('replied in 4 s');
    expect(await replies.nth(1).locator('[data-figure="cost"]').count()).toBe(0);
    // Questions have no latency.
    expect(await messages.locator('article[data-role="user"] [data-figure="reply-latency"]').count()).toBe(0);

    // Numbers name the same message everywhere: the first visible one stays #2, and the gap says why.
    const links = await messages.locator('.message__permalink').allTextContents();
    expect(links).toEqual(['#2', '#3', '#4', '#5']);
    const gap = messages.locator('.transcript-gap');
    expect(await gap.count()).toBe(1);
    expect(await gap.getAttribute('data-gap')).toBe('1-1');
    expect(await gap.textContent()).toContain('Message #1 is not shown in this view');
    await expectAccessible(page);

    // With hidden rows shown, #1 is there and nothing is missing.
    await page.goto(url('/sessions/e2e-latency?includeHidden=true'));
    await expect
      .poll(() => messages.locator('.message__permalink').allTextContents(), WAIT)
      .toEqual(['#1', '#2', '#3', '#4', '#5']);
    expect(await messages.locator('.transcript-gap').count()).toBe(0);
    await expectAccessible(page);
  });

  it('the overview’s "Reply latency" card gives p50 and p95 per model and per source, as the API does', async () => {
    await page.goto(url('/'));
    const byModel = page.getByRole('table', { name: 'Reply latency by model' });
    const modelRow = byModel.locator('tbody tr').filter({ hasText: 'latency-model-e2e' });
    await expect.poll(() => modelRow.count(), WAIT).toBe(1);
    // Two replies: 1.5 s and 4 s → the median is the first (nearest rank), the 95th the second.
    expect(await modelRow.locator('th, td').allTextContents()).toEqual(['latency-model-e2e', '2', '1.5 s', '4 s']);
    const bySource = page.getByRole('table', { name: 'Reply latency by source' });
    const sourceRow = bySource.locator('tbody tr').filter({ hasText: 'e2e-surface' });
    expect(await sourceRow.locator('th, td').allTextContents()).toEqual(['e2e-surface', '2', '1.5 s', '4 s']);

    // Every other row matches the API's answer for the same period.
    const stats = await apiJson<{ byModel: { key: string | null; replies: number }[] }>('/v1/stats/latency');
    expect(await byModel.locator('tbody tr').count()).toBe(stats.byModel.length);
    expect(stats.byModel.find((group) => group.key === 'latency-model-e2e')).toEqual({
      key: 'latency-model-e2e',
      replies: 2,
      p50Ms: 1_500,
      p95Ms: 4_000,
    });
    await expectAccessible(page);
  });
});
