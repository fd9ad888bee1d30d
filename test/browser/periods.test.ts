import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHermesScenario } from '@statehouse/state/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { apiClient, expectAccessible, SCREENSHOT_DIR, signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * The shared period control (overview, sessions, search) in the viewer's time zone, the sessions
 * list's sorts, counter filters and exports. The store holds nothing but history imported from a
 * Hermes file whose conversations are more than a year old (no demo data): the default periods are
 * empty, "all time" and a custom range show it. The browser is in Europe/Paris.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;
let fixtures: string;

const url = (path: string) => `${stack.webUrl}${path}`;
const number = (value: number) => new Intl.NumberFormat('en-US').format(value);
const figure = (name: string) => page.locator(`[data-figure="${name}"] .stat__value`).textContent();

async function apiJson<T>(path: string): Promise<T> {
  const response = await api(path);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

/** Clicks an export button and returns the saved file's text once its progress says it is done. */
async function download(name: string): Promise<{ text: string; file: string }> {
  const saved = page.waitForEvent('download');
  await page.getByRole('link', { name, exact: true }).first().click();
  const file = await saved;
  await expect.poll(() => page.getByTestId('export-progress').first().textContent()).toMatch(/saved\.$/);
  const path = join(fixtures, file.suggestedFilename());
  await file.saveAs(path);
  return { text: readFileSync(path, 'utf8'), file: file.suggestedFilename() };
}

describe('periods, sorts, filters and exports', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    fixtures = mkdtempSync(join(tmpdir(), 'statehouse-periods-e2e-'));
    buildHermesScenario(join(fixtures, 'state.db'), 30).close();
    stack = await startStack({ apiEnv: { STATEHOUSE_SEED_DEMO: 'false' } });
    api = apiClient(stack);
    browser = await launchBrowser({ timezoneId: 'Europe/Paris' });
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    await signIn(page, stack, '/admin/import');
    await page.getByLabel('Hermes state.db', { exact: true }).setInputFiles(join(fixtures, 'state.db'));
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await page.waitForURL((current) => current.pathname === '/admin/import' && current.searchParams.has('run'));
    await page.getByTestId('import-state').filter({ hasText: 'Finished' }).waitFor({ timeout: 60_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    if (fixtures) rmSync(fixtures, { recursive: true, force: true });
  });

  it('names the viewer’s zone, and shows history older than a year over all time', async () => {
    const extent = await apiJson<{ first: string | null }>('/v1/stats/extent');
    expect(extent.first).not.toBeNull();
    expect(Date.now() - Date.parse(extent.first!)).toBeGreaterThan(365 * 86_400_000);

    await page.goto(url('/'));
    // The browser's zone is put in the URL once, and named.
    await page.waitForURL((current) => current.searchParams.get('tz') === 'Europe/Paris');
    await expect.poll(() => page.getByTestId('period-zone').textContent()).toBe('Time zone: Europe/Paris');
    // The default period (14 days) holds nothing of this store.
    await expect.poll(() => figure('messages')).toBe('0');

    await page.getByRole('link', { name: 'All time', exact: true }).click();
    await page.waitForURL((current) => current.searchParams.get('period') === 'all');
    expect(new URL(page.url()).searchParams.get('tz')).toBe('Europe/Paris');
    const summary = await apiJson<{ usage: { messages: number } }>(
      `/v1/stats/summary?from=${extent.first}&to=${new Date().toISOString()}`,
    );
    expect(summary.usage.messages).toBeGreaterThan(0);
    await expect.poll(() => figure('messages')).toBe(number(summary.usage.messages));
    // About a year and a half from the first figure to now: weeks (lib contracts bucketForRange).
    await expect.poll(() => page.getByText(/by week in Europe\/Paris/).count()).toBe(1);
    const bars = page.locator('[data-chart="messages"] .recharts-bar-rectangle path');
    await expect.poll(() => bars.count()).toBeGreaterThan(0);
    await expectAccessible(page);
  });

  it('shows a custom range of days in that zone, kept in the URL', async () => {
    const first = new Date(Date.parse((await apiJson<{ first: string }>('/v1/stats/extent')).first) + 43_200_000);
    const day = first.toISOString().slice(0, 10);
    await page.getByText('Custom range').click();
    await page.getByLabel('From', { exact: true }).fill(day);
    await page.getByLabel('Until', { exact: true }).fill(day);
    await page.getByRole('button', { name: 'Show range' }).click();
    await page.waitForURL((current) => current.searchParams.get('from') === day);
    const params = new URL(page.url()).searchParams;
    expect([params.get('period'), params.get('to'), params.get('tz')]).toEqual(['custom', day, 'Europe/Paris']);
    // That day in Paris: from its local midnight to the next (no clock change in that day's history).
    const offset = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Paris', timeZoneName: 'longOffset' })
      .formatToParts(first)
      .find((part) => part.type === 'timeZoneName')!
      .value.replace('GMT', '');
    const start = new Date(`${day}T00:00:00${offset}`);
    const end = new Date(start.getTime() + 86_400_000);
    const summary = await apiJson<{ usage: { messages: number } }>(
      `/v1/stats/summary?from=${start.toISOString()}&to=${end.toISOString()}`,
    );
    expect(summary.usage.messages).toBeGreaterThan(0);
    await expect.poll(() => figure('messages')).toBe(number(summary.usage.messages));
    await expect.poll(() => page.getByText(/by hour in Europe\/Paris/).count()).toBe(1);
    await expectAccessible(page);
  });

  it('lists sessions of the period, sorted by tokens, filtered by messages', async () => {
    await page.goto(url('/sessions?period=7d&tz=Europe/Paris'));
    await page.getByText('No sessions match these filters').waitFor();
    await page.getByRole('link', { name: 'All time', exact: true }).click();
    await page.waitForURL((current) => current.searchParams.get('period') === null && current.pathname === '/sessions');
    await page.getByLabel('Sort by').selectOption('tokens');
    await page.getByLabel('Messages at least').fill('1');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((current) => current.searchParams.get('order') === 'tokens');
    expect(new URL(page.url()).searchParams.get('minMessages')).toBe('1');
    const expected = await apiJson<{ items: { id: string }[] }>('/v1/sessions?order=tokens&minMessages=1&limit=50');
    expect(expected.items.length).toBeGreaterThan(1);
    const shown = async () => (await page.locator('.session-row__id').allTextContents()).map((text) => text.trim());
    await expect.poll(shown).toEqual(expected.items.map((item) => item.id));
    await expectAccessible(page);
  });

  it('exports the filtered list as JSON lines and Markdown, with progress', async () => {
    const expected = await apiJson<{ items: { id: string }[] }>('/v1/sessions?order=tokens&minMessages=1&limit=50');
    const jsonl = await download('Export JSONL');
    expect(jsonl.file).toBe('sessions.jsonl');
    const rows = jsonl.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string });
    expect(rows.map((row) => row.id)).toEqual(expected.items.map((item) => item.id));
    await expect
      .poll(() => page.getByTestId('export-progress').first().textContent())
      .toBe(`Export JSONL: ${rows.length} rows saved.`);
    const markdown = await download('Export Markdown');
    expect(markdown.file).toBe('sessions.md');
    expect(markdown.text.trim().split('\n')).toHaveLength(2 + rows.length);
    await expectAccessible(page);
  });

  it('exports one conversation as Markdown from its page', async () => {
    const [first] = (await apiJson<{ items: { id: string; title: string | null }[] }>('/v1/sessions?order=messages'))
      .items;
    await page.goto(url(`/sessions/${encodeURIComponent(first.id)}`));
    const markdown = await download('Export Markdown');
    expect(markdown.file).toBe(`${first.id}.md`);
    expect(markdown.text.startsWith(`# ${first.title ?? first.id}\n`)).toBe(true);
    expect(markdown.text).toMatch(/^## (user|assistant)/m);
  });

  it('searches within the period', async () => {
    await page.goto(url('/search?q=deploy&period=30d&tz=Europe/Paris'));
    await page.getByRole('link', { name: 'All time', exact: true }).waitFor();
    expect(await page.locator('mark').count()).toBe(0);
    await page.getByRole('link', { name: 'All time', exact: true }).click();
    await page.waitForURL((current) => current.searchParams.get('period') === null && current.pathname === '/search');
    expect(new URL(page.url()).searchParams.get('q')).toBe('deploy');
    await expect.poll(() => page.locator('mark').count()).toBeGreaterThan(0);
    await expectAccessible(page);
  });
});
