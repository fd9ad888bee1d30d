import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityProblems } from './support/axe.js';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import {
  apiClient,
  expectAccessible,
  README_IMAGE_DIR,
  readmePicture,
  SCREENSHOT_DIR,
  signIn,
} from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * The overview against the API's own figures, the receipts page's order, and axe-core on every
 * page of the dashboard (light and dark). Its own API and dashboard, demo data, signed in as admin.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;

const url = (path: string) => `${stack.webUrl}${path}`;
const DAY_MS = 86_400_000;

/** The overview's default period: the last 14 UTC days, today included (apps/web/lib/overview.ts). */
function fourteenDays(): { from: string; to: string } {
  const end = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
  return { from: new Date(end - 14 * DAY_MS).toISOString(), to: new Date(end).toISOString() };
}

async function apiJson<T>(path: string): Promise<T> {
  const response = await api(path);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

interface Figures {
  messages: number;
  conversations: number;
  totalTokens: number;
  costUsd: number;
}
interface Usage {
  totals: Figures;
  buckets: { groups: (Figures & { key: string | null })[] }[];
}

const number = (value: number) => new Intl.NumberFormat('en-US').format(value);
const cost = (usd: number) => (usd === 0 ? '$0.00' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);

/** Bars with a height: every non-zero (bucket, series) pair of a stacked chart draws exactly one. */
async function drawnBars(chart: string): Promise<number> {
  const bars = page.locator(`[data-chart="${chart}"] .recharts-bar-rectangle path`);
  await expect.poll(() => bars.count()).toBeGreaterThan(0);
  return bars.evaluateAll((paths) => paths.filter((path) => path.getBoundingClientRect().height > 0).length);
}

describe('overview, receipts and every page in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    mkdirSync(README_IMAGE_DIR, { recursive: true });
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('the login page passes axe before anyone signs in', async () => {
    await page.goto(url('/login'));
    await expectAccessible(page);
    await signIn(page, stack, '/');
  });

  it('draws the overview from the seeded data, with the totals the API reports', async () => {
    const range = fourteenDays();
    const query = `from=${range.from}&to=${range.to}&bucket=day`;
    const [bySource, byModel, deletions, summary] = await Promise.all([
      apiJson<Usage>(`/v1/stats/usage?${query}&groupBy=source`),
      apiJson<Usage>(`/v1/stats/usage?${query}&groupBy=model`),
      apiJson<{ totals: { sessions: number }; buckets: { groups: { sessions: number }[] }[] }>(
        `/v1/stats/deletions?${query}&groupBy=origin`,
      ),
      apiJson<{ usage: Figures; activeNow: { sessions: number } }>(
        `/v1/stats/summary?from=${range.from}&to=${range.to}`,
      ),
    ]);
    // The demo writes two weeks of activity: the charts have something to draw.
    expect(bySource.totals.messages).toBeGreaterThan(50);
    expect(deletions.totals.sessions).toBeGreaterThan(0);

    // Each card and chart streams in on its own: read them as they arrive.
    await page.goto(url('/'));
    const headline = (chart: string) => page.locator(`[data-chart="${chart}"] [data-chart-headline]`).textContent();
    await expect.poll(() => headline('messages')).toBe(number(bySource.totals.messages));
    await expect.poll(() => headline('conversations')).toBe(number(bySource.totals.conversations));
    await expect.poll(() => headline('tokens')).toBe(number(byModel.totals.totalTokens));
    await expect.poll(() => headline('cost')).toBe(cost(byModel.totals.costUsd));
    await expect.poll(() => headline('deletions')).toBe(number(deletions.totals.sessions));
    const figure = (name: string) => page.locator(`[data-figure="${name}"] .stat__value`).textContent();
    await expect.poll(() => figure('messages')).toBe(number(summary.usage.messages));
    await expect.poll(() => figure('conversations')).toBe(number(summary.usage.conversations));
    await expect.poll(() => figure('activeNow')).toBe(number(summary.activeNow.sessions));

    // One drawn bar per non-zero (day, source) of the API's answer; the table says the same total.
    const nonZero = bySource.buckets.flatMap((bucket) => bucket.groups.filter((group) => group.messages > 0)).length;
    expect(await drawnBars('messages')).toBe(nonZero);
    const deletionBars = deletions.buckets.flatMap((bucket) => bucket.groups.filter((group) => group.sessions > 0));
    expect(await drawnBars('deletions')).toBe(deletionBars.length);
    const messages = page.locator('[data-chart="messages"]');
    await messages.getByText('Show the numbers').click();
    expect(await messages.locator('[data-chart-total]').textContent()).toBe(number(bySource.totals.messages));
    expect(await messages.getByRole('table').locator('tbody tr').count()).toBeGreaterThan(3);

    await readmePicture(page, 'overview');
    await expectAccessible(page);
  });

  it('keeps period and profile in the URL and filters by them', async () => {
    await page.getByRole('link', { name: '7 days' }).click();
    await page.waitForURL((current) => current.searchParams.get('period') === '7d');
    await page.getByLabel('Profile').selectOption('support');
    await page.waitForURL((current) => current.searchParams.get('profile') === 'support');
    expect(new URL(page.url()).searchParams.get('period')).toBe('7d');
    const end = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
    const week = `from=${new Date(end - 7 * DAY_MS).toISOString()}&to=${new Date(end).toISOString()}`;
    const support = await apiJson<Usage>(`/v1/stats/usage?${week}&bucket=day&groupBy=source&profile=support`);
    await expect
      .poll(() => page.locator('[data-chart="messages"] [data-chart-headline]').textContent())
      .toBe(number(support.totals.messages));

    // A period the page does not offer is said in words, and the default is used.
    await page.goto(url('/?period=fortnight'));
    await expect.poll(() => page.getByText('is not a period this page offers').count()).toBe(1);
  });

  it('lists receipts newest first, and oldest first on request', async () => {
    await page.goto(url('/receipts'));
    const sequences = async () =>
      (await page.locator('.receipts-table__seq').allTextContents()).map((text) => Number(text.replace('#', '')));
    await expect.poll(async () => (await sequences()).length).toBeGreaterThan(1);
    const newest = await sequences();
    expect(newest).toEqual([...newest].sort((a, b) => b - a));
    await readmePicture(page, 'receipts', () =>
      expect.poll(() => page.getByTestId('receipts-live-status').textContent()).toBe('Live'),
    );
    await expectAccessible(page);

    await page.getByRole('link', { name: 'Oldest first (replay)' }).click();
    await page.waitForURL((current) => current.searchParams.get('order') === 'oldest');
    const oldest = await sequences();
    expect(oldest).toEqual([...newest].reverse());
  });

  it('words refused filters for people, not as validation output', async () => {
    const issuesOf = async (path: string) => {
      await page.goto(url(path));
      const alert = page.getByRole('alert').filter({ hasText: 'These filters are not valid' });
      return alert.getByRole('listitem').allTextContents();
    };
    const fields = await issuesOf('/sessions?limit=5000&status=sleeping');
    expect(fields).toEqual(['Status: is not one of the offered choices.', 'Page size: must be at most 200.']);
    // The end date is inclusive: "until the 10th" is before "from the 20th".
    const range = await issuesOf('/sessions?startedFrom=2026-11-20&startedTo=2026-11-10');
    expect(range).toEqual(['“Started until” must be after “Started from”.']);
  });

  it('every page passes axe-core (WCAG 2 A and AA) in light and dark', async () => {
    const receipts = await apiJson<{ items: { operationId: string; sequence: number }[] }>(
      '/v1/deletion-receipts?limit=1',
    );
    const receipt = receipts.items[0];
    const pages = [
      '/sessions',
      '/sessions?view=compact&includeChildren=true',
      '/sessions?startedFrom=2026-02-30',
      '/sessions/demo-support-02-c2',
      '/sessions/demo-support-02-c2?view=conversation&includeHidden=true',
      '/sessions/demo-default-01',
      '/sessions/no-such-session',
      '/search?q=deploy',
      '/search?q=rollback&role=tool',
      '/routes',
      '/gateways',
      '/profiles',
      '/profiles/support',
      '/receipts?order=oldest',
      `/receipts/${receipt.operationId}`,
      `/receipts/reclaim?through=${receipt.sequence}&mode=safe`,
      '/delete?ids=demo-default-01',
      `/delete/done?receipt=${receipt.operationId}&deleted=1`,
      '/settings/account',
      '/admin/users',
      '/admin/tokens',
      '/admin/import',
      '/no-such-page',
    ];
    const failures: string[] = [];
    for (const path of pages) {
      await page.goto(url(path));
      await page.waitForLoadState('networkidle');
      failures.push(...(await accessibilityProblems(page)).map((problem) => `${path} ${problem}`));
    }
    expect(failures).toEqual([]);
  });
});
