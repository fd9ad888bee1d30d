import { mkdirSync } from 'node:fs';
import { clearOfUtcMidnight } from '@statehouse/state/testing';
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
  showAllProfiles,
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
/** Longer than this file runs; its set-up waits out a UTC midnight closer than that. */
const FILE_SPAN_MS = 10 * 60_000;
/** The set-up's own time box (test/vitest.config.ts's hookTimeout). */
const SETUP_MS = 180_000;

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

/** Every page of the dashboard, with real ids (one receipt of the demo data). */
async function everyPage(): Promise<string[]> {
  const receipts = await apiJson<{ items: { operationId: string; sequence: number }[] }>(
    '/v1/deletion-receipts?limit=1',
  );
  const receipt = receipts.items[0];
  return [
    '/',
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
    `/delete/done?receipt=${receipt.operationId}`,
    '/settings/account',
    '/admin/users',
    '/admin/tokens',
    '/admin/import',
    '/no-such-page',
  ];
}

describe('overview, receipts and every page in a browser', () => {
  beforeAll(async () => {
    // This file compares "today" as it computes it with the dashboard's and the API's.
    await clearOfUtcMidnight(FILE_SPAN_MS);
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    mkdirSync(README_IMAGE_DIR, { recursive: true });
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
  }, FILE_SPAN_MS + SETUP_MS);

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
    // The switcher navigates on an explicit submit only (arrow keys must not leave the page).
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForURL((current) => current.searchParams.get('profile') === 'support');
    expect(new URL(page.url()).searchParams.get('period')).toBe('7d');
    const end = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
    const week = `from=${new Date(end - 7 * DAY_MS).toISOString()}&to=${new Date(end).toISOString()}`;
    const support = await apiJson<Usage>(`/v1/stats/usage?${week}&bucket=day&groupBy=source&profile=support`);
    await expect
      .poll(() => page.locator('[data-chart="messages"] [data-chart-headline]').textContent())
      .toBe(number(support.totals.messages));
    await showAllProfiles(page);

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

  // Two schemes on every page (24 of them): minutes on a loaded two-core machine.
  it('every page passes axe-core (WCAG 2 A and AA) in light and dark', async () => {
    // A session page with scheduled wake-ups in its details (the demo data has none).
    for (const body of [
      { id: 'axe-heartbeat', kind: 'interval', intervalSeconds: 300, payload: { prompt: 'check in' } },
      { id: 'axe-standup', kind: 'cron', cron: '0 9 * * 1-5', timeZone: 'Europe/Berlin', enabled: false },
    ]) {
      const created = await api('/v1/sessions/demo-default-01/schedules', {
        method: 'POST',
        body: JSON.stringify(body),
      });
      expect(created.status).toBe(201);
    }
    const pages = await everyPage();
    const failures: string[] = [];
    for (const path of pages) {
      await page.goto(url(path));
      await page.waitForLoadState('networkidle');
      failures.push(...(await accessibilityProblems(page)).map((problem) => `${path} ${problem}`));
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('fits every page into a 375 px wide phone: nothing overflows the page, every control can be reached', async () => {
    if (new URL(page.url()).pathname === '/login' || page.url() === 'about:blank') await signIn(page, stack, '/');
    // A conversation with a long unbroken title and CJK text, the kind that pushes a layout wide.
    const longTitle = `${'会議の議事録とデプロイ計画'.repeat(3)}-${'x'.repeat(60)}`; // 100, the most a title may have
    const created = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: `wide-${'y'.repeat(60)}`,
        profile: 'default',
        source: 'cli',
        title: longTitle,
        messages: [
          { role: 'user', content: `${'東京'.repeat(80)} ${'https://example.com/'.padEnd(240, 'z')}` },
          {
            role: 'assistant',
            content: `\`\`\`\n${'w'.repeat(300)}\n\`\`\`\n\n| a | b |\n| - | - |\n| ${'q'.repeat(200)} | 1 |`,
          },
        ],
      }),
    });
    expect(created.status).toBe(201);
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 375, height: 812 });
    const failures: string[] = [];
    try {
      for (const path of [
        ...(await everyPage()),
        `/sessions/wide-${'y'.repeat(60)}`,
        '/sessions?q=%E4%BC%9A%E8%AD%B0',
        '/search?q=%E6%9D%B1%E4%BA%AC',
      ]) {
        await page.goto(url(path));
        await page.waitForLoadState('networkidle');
        failures.push(
          ...(
            await page.evaluate(() => {
              const width = document.documentElement.clientWidth;
              const found: string[] = [];
              /** The innermost elements reaching past the right edge, to name what to fix. */
              const widest = () =>
                [...document.body.querySelectorAll('*')]
                  .filter((element) => element.getBoundingClientRect().right > width + 1)
                  .filter(
                    (element) =>
                      ![...element.children].some((child) => child.getBoundingClientRect().right > width + 1),
                  )
                  .slice(0, 3)
                  .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join('.')}`)
                  .join(', ');
              if (document.documentElement.scrollWidth > width + 1) {
                found.push(
                  `the page scrolls sideways (${document.documentElement.scrollWidth} px wide; past the edge: ${widest()})`,
                );
              }
              /**
               * Inside a box that scrolls sideways itself (a wide table, code), a control is reached by
               * scrolling it. Not so in navigation: sections hidden past the edge of a scrolling strip
               * are ones a person does not know exist.
               */
              const scrolledInto = (element: Element) => {
                if (element.closest('nav')) return false;
                for (let node = element.parentElement; node; node = node.parentElement) {
                  const style = getComputedStyle(node);
                  if (/(auto|scroll)/.test(style.overflowX) && node.scrollWidth > node.clientWidth) return true;
                }
                return false;
              };
              const controls = document.querySelectorAll('a[href], button, input, select, textarea, summary');
              for (const control of controls) {
                const box = control.getBoundingClientRect();
                if (box.width === 0 || box.height === 0) continue;
                if (getComputedStyle(control).visibility === 'hidden') continue;
                if ((box.left < -1 || box.right > width + 1) && !scrolledInto(control)) {
                  const name = (control.getAttribute('aria-label') ?? control.textContent ?? '').trim().slice(0, 40);
                  found.push(
                    `${control.tagName.toLowerCase()} “${name}” is cut off (${Math.round(box.left)}–${Math.round(box.right)} px)`,
                  );
                }
              }
              return found;
            })
          ).map((problem) => `${path}: ${problem}`),
        );
      }
    } finally {
      if (viewport) await page.setViewportSize(viewport);
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
