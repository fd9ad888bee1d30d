import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { apiClient, expectAccessible, showAllProfiles, signIn } from './support/dashboard.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, type Stack, startStack } from './support/stack.js';

/**
 * Defects of the dashboard review, replayed in Chromium against the real API and dashboard: each
 * step failed on the code before its fix.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;
const url = (path: string) => `${stack.webUrl}${path}`;

describe('dashboard review fixes in a browser', () => {
  beforeAll(async () => {
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser({ timezoneId: 'Asia/Tokyo' });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack, '/sessions');
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('aligns Markdown table columns with classes, not inline styles the CSP blocks', async () => {
    const created = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: 'review-aligned-table',
        profile: 'default',
        source: 'cli',
        title: 'Aligned table',
        messages: [
          { role: 'user', content: 'Prices?' },
          {
            role: 'assistant',
            content: ['| Item | Qty | Price |', '| :--- | :---: | ---: |', '| tea | 2 | 3.50 |'].join('\n'),
          },
        ],
      }),
    });
    expect(created.status).toBe(201);
    const before = browser.cspViolations.length;
    await page.goto(url('/sessions/review-aligned-table'));
    const table = page.locator('.markdown table');
    await expect.poll(() => table.count()).toBe(1);
    // No style attribute anywhere in the rendered Markdown (a nonce CSP refuses every one).
    expect(await page.locator('.markdown [style]').count()).toBe(0);
    const aligns = await table
      .locator('tbody td')
      .evaluateAll((cells) => cells.map((cell) => getComputedStyle(cell).textAlign));
    expect(aligns).toEqual(['left', 'center', 'right']);
    const headAligns = await table.locator('th').evaluateAll((cells) => cells.map((cell) => cell.className));
    expect(headAligns).toEqual(['markdown__align--left', 'markdown__align--center', 'markdown__align--right']);
    expect(browser.cspViolations.slice(before)).toEqual([]);
  });

  it('navigates with the profile switcher only on an explicit submit, never on an arrow key', async () => {
    await page.goto(url('/sessions'));
    const select = page.getByLabel('Profile');
    await select.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    // Give a navigation (there was one per key press) time to happen.
    await page.waitForTimeout(1_000);
    expect(new URL(page.url()).searchParams.get('profile')).toBeNull();
    const chosen = await select.inputValue();
    expect(chosen).not.toBe('');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL((current) => current.searchParams.get('profile') === chosen);
    await showAllProfiles(page);
  });

  it('says which zone date filters are days of, and asks the API for that zone’s days', async () => {
    await page.goto(url('/sessions'));
    await expect.poll(() => page.getByTestId('date-zone').textContent()).toContain('your time zone (Asia/Tokyo)');
    await page.getByLabel('Started from').fill('2026-11-30');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((current) => current.searchParams.get('startedFrom') === '2026-11-30');
    expect(new URL(page.url()).searchParams.get('tz')).toBe('Asia/Tokyo');
    await expectAccessible(page);
    await page.goto(url('/search?q=deploy'));
    await expect.poll(() => page.getByTestId('date-zone').textContent()).toContain('Asia/Tokyo');
  });

  it('shows the deleted count the receipts prove, not a number from the URL', async () => {
    await page.goto(url('/delete/done?deleted=999'));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Nothing was deleted');
    expect(await page.locator('main').textContent()).not.toContain('999');
    const receipts = (await (await api('/v1/deletion-receipts?limit=1')).json()) as {
      items: { operationId: string; counts: { sessions: number } }[];
    };
    const [receipt] = receipts.items;
    await page.goto(url(`/delete/done?receipt=${receipt.operationId}&deleted=999`));
    const sessions = receipt.counts.sessions;
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      `Deleted ${sessions} ${sessions === 1 ? 'session' : 'sessions'}`,
    );
  });

  it('signs out every other browser from the account page, keeping this one', async () => {
    // Another browser signed in as the same user.
    const login = await fetch(`${stack.apiUrl}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Elsewhere/1.0' },
      body: JSON.stringify({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(204);
    const elsewhere = (login.headers.get('set-cookie') ?? '').split(';')[0];
    await page.goto(url('/settings/account'));
    const sessions = page.getByRole('region', { name: 'Signed-in sessions' });
    await expect.poll(() => sessions.getByRole('row').count()).toBeGreaterThanOrEqual(3);
    await expectAccessible(page);
    await sessions.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect.poll(() => sessions.locator('.action-result').textContent()).toMatch(/Signed out \d+ other session/);
    const me = await fetch(`${stack.apiUrl}/v1/auth/me`, { headers: { cookie: elsewhere } });
    expect(me.status).toBe(401);
    // This browser stays signed in, alone in the list.
    await page.reload();
    await expect.poll(() => sessions.getByRole('row').count()).toBe(2);
    expect(await sessions.getByText('This browser').count()).toBe(1);
  });

  it('never sends the API’s internal address to the browser (pages and scripts)', async () => {
    const internal = new URL(stack.apiUrl).host;
    const cookie = (await browser.context.cookies(stack.webUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
    const scripts = new Set<string>();
    for (const path of ['/login', '/sessions', '/search?q=deploy', '/settings/account', '/admin/import']) {
      const html = await (await fetch(url(path), { headers: { cookie } })).text();
      expect(html, path).not.toContain(internal);
      expect(html, path).not.toContain('STATEHOUSE_API_URL');
      for (const match of html.matchAll(/src="(\/_next\/static\/[^"]+\.js)"/g)) scripts.add(match[1]);
    }
    expect(scripts.size).toBeGreaterThan(0);
    for (const script of scripts) {
      const source = await (await fetch(url(script))).text();
      expect(source, script).not.toContain(internal);
      expect(source, script).not.toContain('127.0.0.1:3000');
      expect(source, script).not.toContain('STATEHOUSE_API_URL');
    }
  });

  it('ran without a CSP violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});

describe('dashboard with its API unreachable', () => {
  let down: Stack;
  let downBrowser: TestBrowser;

  beforeAll(async () => {
    // Port 9 (discard) on loopback: nothing listens, every call is refused.
    down = await startStack({ webEnv: { STATEHOUSE_API_URL: 'http://127.0.0.1:9/internal-api' } });
    downBrowser = await launchBrowser();
  });

  afterAll(async () => {
    await downBrowser?.close();
    await down?.stop();
  });

  it('says the API is unreachable without naming its internal address', async () => {
    const downPage = await downBrowser.context.newPage();
    // A browser with a session cookie: the dashboard asks the API who it is, and cannot reach it.
    await downBrowser.context.addCookies([
      { name: 'statehouse_session', value: 'some-session-secret', url: down.webUrl, sameSite: 'Strict' },
    ]);
    await downPage.goto(`${down.webUrl}/sessions`);
    await expect
      .poll(() => downPage.getByRole('alert').first().textContent(), { timeout: 30_000 })
      .toContain('unreachable');
    const html = await downPage.content();
    expect(html).not.toContain('127.0.0.1:9');
    expect(html).not.toContain('internal-api');
    // Sign-in words it its own way, without the address either.
    await downBrowser.context.clearCookies();
    await downPage.goto(`${down.webUrl}/login`);
    await downPage.getByLabel('Username').fill(ADMIN_USERNAME);
    await downPage.getByLabel('Password').fill(ADMIN_PASSWORD);
    await downPage.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => downPage.locator('#login-error').textContent()).toContain('cannot be reached');
    expect(await downPage.content()).not.toContain('127.0.0.1:9');
  });
});
