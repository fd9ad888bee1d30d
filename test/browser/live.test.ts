import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { apiClient, expectAccessible, readmePicture, SCREENSHOT_DIR, screenshot, signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * An open transcript and the sessions list follow appends made elsewhere (through the API), with a
 * polite live status and pause/resume; tool arguments and results read as JSON trees (collapse,
 * search, copy, download) and long content scrolls in its own box. Its own API and dashboard.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;

const url = (path: string) => `${stack.webUrl}${path}`;
/** Polls wait for server renders, slow on a loaded 2-core machine. */
const WAIT = { timeout: 15_000 };
const SESSION = 'e2e-live';
const LONG_TEXT = `${'A long pasted log line that goes on. '.repeat(150)}THE END`;

async function append(sessionId: string, messages: unknown[]): Promise<number[]> {
  const response = await api(`/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    body: JSON.stringify({ messages }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { ids: number[] }).ids;
}

describe('live updates and structured content in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack);
    const created = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({ id: SESSION, profile: 'default', source: 'cli', title: 'Live talk' }),
    });
    expect(created.status).toBe(201);
    await append(SESSION, [
      { role: 'user', content: 'Find the report' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'call-1',
            type: 'function',
            function: {
              name: 'search',
              arguments: JSON.stringify({
                query: 'quarterly report',
                filters: { year: 2026, tags: ['finance', 'needle'] },
              }),
            },
          },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'call-1',
        toolName: 'search',
        content: JSON.stringify({ results: [{ title: 'Q3 report', score: 0.92, draft: false, owner: null }] }),
      },
      { role: 'assistant', content: LONG_TEXT },
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('[feeds.resume] an open transcript shows appends as they commit, pauses and resumes without a repeat or a gap', async () => {
    await page.goto(url(`/sessions/${SESSION}`));
    const status = page.getByTestId('live-transcript-status');
    await expect.poll(() => status.textContent(), WAIT).toContain('Live');
    await expect(page.getByRole('status').filter({ hasText: 'Live' }).count()).resolves.toBeGreaterThan(0);

    await append(SESSION, [{ role: 'assistant', content: 'Appended while you watch' }]);
    const live = page.getByTestId('live-messages');
    await expect.poll(() => live.textContent(), WAIT).toContain('Appended while you watch');
    await expect.poll(() => status.textContent(), WAIT).toContain('1 new message');

    await page.getByRole('button', { name: 'Pause live transcript' }).click();
    await expect.poll(() => status.textContent(), WAIT).toContain('Paused');
    await expect(
      page.getByRole('button', { name: 'Resume live transcript' }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');
    await append(SESSION, [{ role: 'user', content: 'Written during the pause' }]);
    // Paused: nothing arrives (give a live stream ample time to have delivered it).
    await page.waitForTimeout(1500);
    await expect(live.textContent()).resolves.not.toContain('Written during the pause');

    await page.getByRole('button', { name: 'Resume live transcript' }).click();
    await expect.poll(() => live.textContent(), WAIT).toContain('Written during the pause');
    await append(SESSION, [{ role: 'assistant', content: 'And after it' }]);
    await expect.poll(() => live.locator('article').count(), WAIT).toBe(3);
    await expect(live.locator('article').allTextContents()).resolves.toEqual([
      expect.stringContaining('Appended while you watch'),
      expect.stringContaining('Written during the pause'),
      expect.stringContaining('And after it'),
    ]);
    // Nothing appended twice: each id once, on the page as a whole.
    const ids = await page
      .locator('article[data-message-id]')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-message-id')));
    expect(new Set(ids).size).toBe(ids.length);
    await expectAccessible(page);
    await screenshot(page, 'live-transcript');
    // The README's picture: the messages that arrived while the page was open, under its live status.
    await readmePicture(page, 'live-transcript', () => live.scrollIntoViewIfNeeded(), { reload: false });
  });

  it('the sessions list follows messages arriving in its sessions, in place', async () => {
    await page.goto(url('/sessions?profile=default'));
    const status = page.getByTestId('live-sessions-status');
    await expect.poll(() => status.textContent(), WAIT).toContain('Live');
    await expect(page.locator('main').textContent()).resolves.toContain('Live talk');
    await append(SESSION, [{ role: 'user', content: 'One more for the list' }]);
    await expect.poll(() => status.textContent(), WAIT).toContain('updated: Live talk');
    await page.getByRole('button', { name: 'Pause live updates' }).click();
    await expect.poll(() => status.textContent(), WAIT).toContain('Paused');
    await expectAccessible(page);
  });

  it('tool arguments and results read as JSON trees: collapse by keyboard, search, copy, download; long content scrolls in its box', async () => {
    await page.goto(url(`/sessions/${SESSION}`));
    // The call's fold, opened from the keyboard.
    const call = page.locator('summary', { hasText: 'Called' }).first();
    await call.focus();
    await page.keyboard.press('Enter');
    const args = page.getByRole('figure', { name: 'Arguments of search' });
    await expect.poll(() => args.isVisible(), WAIT).toBe(true);
    await expect(args.textContent()).resolves.toContain('"quarterly report"');

    // Search opens the node that holds a match and marks it.
    const viewer = page.locator('.json-viewer', { has: args });
    await viewer.getByRole('button', { name: 'Collapse all' }).click();
    await expect(args.locator('.json-viewer__leaf').first().isVisible()).resolves.toBe(false);
    await viewer.getByRole('searchbox', { name: 'Search in arguments of search' }).fill('needle');
    await expect.poll(() => viewer.textContent(), WAIT).toContain('1 match');
    await expect(args.locator('mark').textContent()).resolves.toBe('needle');
    await expect(args.locator('mark').isVisible()).resolves.toBe(true);

    // A node toggles with the keyboard.
    const filters = args.locator('summary', { hasText: 'filters' });
    await filters.focus();
    await page.keyboard.press('Enter');
    await expect(args.locator('mark').isVisible()).resolves.toBe(false);
    await page.keyboard.press('Enter');
    await expect(args.locator('mark').isVisible()).resolves.toBe(true);

    // Download: the document as a file, made in the page.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      viewer.getByRole('button', { name: 'Download arguments of search' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('arguments-search.json');

    // The tool's result is a tree too, once its fold is open.
    await page.locator('summary', { hasText: 'Result of' }).first().click();
    const result = page.getByRole('figure', { name: /^Result of search/ });
    await expect.poll(() => result.textContent(), WAIT).toContain('"Q3 report"');
    await expect(result.textContent()).resolves.toContain('0.92');

    // Long text: its own scrolling box, focusable, with its size and a download.
    const long = page.getByRole('figure', { name: /^Message \d+$/ }).filter({ hasText: 'THE END' });
    await expect(long.getAttribute('tabindex')).resolves.toBe('0');
    const box = await long.evaluate((node) => ({ client: node.clientHeight, scroll: node.scrollHeight }));
    expect(box.scroll).toBeGreaterThan(box.client);
    await long.focus();
    await page.keyboard.press('End');
    await expect.poll(() => long.evaluate((node) => node.scrollTop), WAIT).toBeGreaterThan(0);
    await expect(
      page.getByText(`${new Intl.NumberFormat('en-US').format(LONG_TEXT.length)} characters`).count(),
    ).resolves.toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'json-viewer', { dark: true });
    await readmePicture(page, 'json-viewer', async () => {
      const opened = page.locator('summary', { hasText: 'Called' }).first();
      await opened.click();
      await page.locator('summary', { hasText: 'Result of' }).first().click();
      await page.locator('.json-viewer', { has: result }).getByRole('button', { name: 'Expand all' }).click();
      // The call at the top, clear of the sticky header.
      await opened.evaluate((node) => {
        node.scrollIntoView({ block: 'start' });
        window.scrollBy(0, -120);
      });
    });
  });
});
