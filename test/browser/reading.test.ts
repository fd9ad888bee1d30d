import { mkdirSync } from 'node:fs';
import { clearOfUtcMidnight } from '@statehouse/state/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { apiClient, expectAccessible, SCREENSHOT_DIR, signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * What a reader of agent history sees beyond the pages' own tests: the list's usage columns,
 * compact table, both-way paging and total; every overview card and chart table against the API,
 * with the receipt consumers' lag; a parent named by its title; relative times that keep current.
 * Its own API and dashboard, demo data, signed in as admin.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;

const url = (path: string) => `${stack.webUrl}${path}`;
const DAY_MS = 86_400_000;
/** Longer than this file runs; its set-up waits out a UTC midnight closer than that. */
const FILE_SPAN_MS = 10 * 60_000;
/** The set-up's own time box (test/vitest.config.ts's hookTimeout). */
const SETUP_MS = 180_000;
/** Polls wait for server renders and actions, slow on a loaded 2-core machine. */
const WAIT = { timeout: 15_000 };
const number = (value: number) => new Intl.NumberFormat('en-US').format(value);
const cost = (usd: number) => (usd === 0 ? '$0.00' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);

async function apiJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await api(path, init);
  expect(response.status, path).toBeLessThan(300);
  return (await response.json()) as T;
}

describe('reading history in a browser', () => {
  beforeAll(async () => {
    // This file compares "today" as it computes it with the dashboard's and the API's.
    await clearOfUtcMidnight(FILE_SPAN_MS);
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack);

    // A conversation with a model and usage, and a branch of it (its parent is named by title).
    await apiJson('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: 'e2e-usage',
        profile: 'default',
        source: 'cli',
        model: 'gpt-e2e',
        userId: 'ada-e2e',
        title: 'Usage figures',
      }),
    });
    await apiJson('/v1/sessions/e2e-usage/messages', {
      method: 'POST',
      body: JSON.stringify({
        messages: [
          { role: 'user', content: 'How much did this cost?' },
          { role: 'assistant', content: 'A quarter.' },
        ],
        usage: { inputTokens: 1200, outputTokens: 34, estimatedCostUsd: 0.25 },
        model: 'gpt-e2e',
      }),
    });
    await apiJson('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: 'e2e-usage-branch',
        profile: 'default',
        source: 'cli',
        title: 'Branch of the usage talk',
        parentSessionId: 'e2e-usage',
        lineageKind: 'branch',
        messages: [{ role: 'user', content: 'What if it were cheaper?' }],
      }),
    });
  }, FILE_SPAN_MS + SETUP_MS);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('lists model, tokens, cost and duration, filtered by model and user from the form', async () => {
    await page.goto(url('/sessions'));
    await page.getByLabel('Model', { exact: true }).selectOption('gpt-e2e');
    await page.getByLabel('User', { exact: true }).fill('ada-e2e');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((current) => current.searchParams.get('model') === 'gpt-e2e');
    expect(new URL(page.url()).searchParams.get('userId')).toBe('ada-e2e');

    const rows = page.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    const row = rows.first();
    expect(await row.locator('.session-row__model').textContent()).toBe('gpt-e2e');
    expect(await row.locator('.session-row__stats').textContent()).toContain('1,234 tokens · $0.25');
    expect(await row.locator('.session-row__stats span[title^="From the conversation"]').textContent()).toMatch(
      /^\d+ (s|min)$/,
    );

    // The compact table carries the same figures in columns.
    await page.getByRole('link', { name: 'Compact', exact: true }).click();
    await page.waitForURL((current) => current.searchParams.get('view') === 'compact');
    const table = page.getByRole('table', { name: 'Sessions' });
    const head = await table.locator('thead th').allTextContents();
    expect(head).toEqual(expect.arrayContaining(['Model', 'Tokens', 'Cost', 'Duration']));
    const cells = await table.locator('tbody tr').first().locator('td, th').allTextContents();
    const at = (name: string) => cells[head.indexOf(name)];
    expect([at('Title'), at('Model'), at('Tokens'), at('Cost')]).toEqual([
      'Usage figures',
      'gpt-e2e',
      '1,234',
      '$0.25',
    ]);
    await expectAccessible(page);
  });

  it('a row shows the surface a conversation began on and the one holding it now (created → current)', async () => {
    await apiJson('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({ id: 'e2e-moved', profile: 'default', source: 'telegram', title: 'Moved surfaces' }),
    });
    await apiJson('/v1/sessions/e2e-moved', {
      method: 'PATCH',
      headers: { 'If-Match': '"1"' },
      body: JSON.stringify({ source: 'desktop' }),
    });
    await page.goto(url('/sessions?source=desktop'));
    const row = page.getByRole('list', { name: 'Sessions' }).getByRole('listitem').filter({ hasText: 'e2e-moved' });
    await expect.poll(() => row.count(), WAIT).toBe(1);
    const change = row.locator('.source-change');
    expect(await change.getAttribute('title')).toBe('Created on telegram, now on desktop');
    expect(await change.locator('.badge').allTextContents()).toEqual(['telegram', 'desktop']);
    await expectAccessible(page);
    await page.goto(url('/sessions?source=desktop&view=compact'));
    const table = page.getByRole('table', { name: 'Sessions' });
    const cell = table.locator('tbody tr').filter({ hasText: 'Moved surfaces' }).locator('.source-change');
    expect(await cell.getAttribute('title')).toBe('Created on telegram, now on desktop');
    // Seen as "telegram → desktop", read as "telegram, now on desktop" (the arrow is hidden from readers).
    expect(await cell.textContent()).toMatch(/^telegram\s*→\s*, now on\s*desktop$/);
    expect(await cell.locator('[aria-hidden="true"]').textContent()).toBe('→');
    await expectAccessible(page);
  });

  it('pages back with "Previous" and says the total the API counts', async () => {
    const answer = await apiJson<{ total: { count: number; exact: boolean } }>('/v1/sessions?limit=5');
    await page.goto(url('/sessions?limit=5'));
    const total = `${number(answer.total.count)}${answer.total.exact ? '' : '+'}`;
    await expect
      .poll(() => page.getByTestId('session-total').textContent())
      .toBe(`5 sessions on this page of ${total}`);
    const ids = page.getByRole('list', { name: 'Sessions' }).locator('.session-row__id');
    const first = await ids.allTextContents();

    const shown = () => ids.allTextContents().then((texts) => texts.join());
    await page.getByRole('link', { name: 'Next page →' }).first().click();
    await page.waitForURL((current) => current.searchParams.has('cursor'));
    const next = page.url();
    await expect.poll(shown, WAIT).not.toBe(first.join());
    await page.getByRole('link', { name: '← Previous' }).first().click();
    await page.waitForURL((current) => current.href !== next);
    await expect.poll(shown, WAIT).toBe(first.join());
  });

  // Five charts opened one by one: time-boxed generously for a loaded machine.
  it('shows every overview card with the API’s figures, every chart with its numbers, and the consumers’ lag', {
    timeout: 180_000,
  }, async () => {
    await apiJson('/v1/receipt-consumers/e2e-reader', { method: 'PUT', body: JSON.stringify({ cursor: 0 }) });
    const lag = await apiJson<{ highWater: number }>('/v1/stats/receipt-lag');
    expect(lag.highWater).toBeGreaterThan(0);
    const end = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
    const range = `from=${new Date(end - 14 * DAY_MS).toISOString()}&to=${new Date(end).toISOString()}`;
    const summary = await apiJson<{
      usage: { messages: number; conversations: number; totalTokens: number; costUsd: number };
      deletions: { sessions: number };
    }>(`/v1/stats/summary?${range}`);
    expect(summary.usage.totalTokens).toBeGreaterThanOrEqual(1234);

    await page.goto(url('/'));
    const figure = (name: string) => page.locator(`[data-figure="${name}"] .stat__value`).textContent();
    await expect.poll(() => figure('tokens'), WAIT).toBe(number(summary.usage.totalTokens));
    await expect.poll(() => figure('cost'), WAIT).toBe(cost(summary.usage.costUsd));
    await expect.poll(() => figure('deletions'), WAIT).toBe(number(summary.deletions.sessions));

    // Each chart's accessible fallback: a table of the numbers it draws.
    for (const chart of ['messages', 'conversations', 'tokens', 'cost', 'deletions']) {
      const card = page.locator(`[data-chart="${chart}"]`);
      await card.getByText('Show the numbers').click();
      await expect
        .poll(() => card.getByRole('table').locator('tbody tr').count(), { ...WAIT, message: chart })
        .toBeGreaterThan(0);
    }

    const consumers = page.locator('[data-chart="receipt-lag"]').getByRole('table');
    const reader = consumers.locator('tbody tr').filter({ hasText: 'e2e-reader' });
    await expect.poll(() => reader.count(), WAIT).toBe(1);
    const cells = await reader.locator('td, th').allTextContents();
    expect(cells.slice(0, 3)).toEqual(['e2e-reader', '#0', number(lag.highWater)]);
    await expectAccessible(page);
  });

  it('names a parent by its title and keeps relative times current (last: it fakes the clock)', async () => {
    await page.goto(url('/sessions/e2e-usage-branch'));
    const parent = page.locator('.parent-link').getByRole('link');
    expect(await parent.textContent()).toBe('Usage figures');
    expect(new URL((await parent.getAttribute('href')) ?? '', stack.webUrl).pathname).toBe('/sessions/e2e-usage');

    await page.clock.install();
    await page.goto(url('/sessions?model=gpt-e2e'));
    const active = page.getByRole('list', { name: 'Sessions' }).locator('.session-row__stats time');
    await expect.poll(() => active.textContent(), WAIT).toMatch(/^(just now|\d+ min ago)$/);
    const before = await active.textContent();
    await page.clock.runFor(2 * 60 * 60_000);
    await expect.poll(() => active.textContent(), WAIT).toBe('2 h ago');
    expect(before).not.toBe('2 h ago');
  });
});
