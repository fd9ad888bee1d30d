import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { apiClient, expectAccessible, SCREENSHOT_DIR, screenshot, signIn } from './support/dashboard.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, type Stack, startStack } from './support/stack.js';

/**
 * Account and administration screens end to end: users, API tokens (shown once, then revoked),
 * a member refused on every administrator page, changing one's own password, and a missing
 * session answering HTTP 404. Own API and dashboard; the steps run in order.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;

const url = (path: string) => `${stack.webUrl}${path}`;
const MEMBER = { username: 'mia', password: 'mia-first-password' };
const NEW_ADMIN_PASSWORD = 'a-brand-new-admin-password';

async function logOut(): Promise<void> {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(/\/login/);
}

async function whoAmI(token: string): Promise<number> {
  const response = await fetch(`${stack.apiUrl}/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  return response.status;
}

describe('account and administration in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack, '/admin/users');
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('creates a member who may read one profile', async () => {
    const form = page.getByRole('form', { name: 'Create a user' });
    await form.getByLabel('Username').fill(MEMBER.username);
    await form.getByLabel('First password').fill(MEMBER.password);
    await form.getByLabel('Role').selectOption('member');
    await form.getByLabel('support', { exact: true }).check();
    await form.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => form.locator('.action-result').textContent()).toContain('Created member “mia”');
    const row = page.getByRole('listitem', { name: MEMBER.username });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByLabel('support', { exact: true }).isChecked()).toBe(true);
    expect(await row.getByLabel('All profiles').isChecked()).toBe(false);
    await expectAccessible(page);
    await screenshot(page, 'admin-users');
  });

  it('sets a user’s role and profiles, disables and enables them, as the API then reports', async () => {
    // Another user: the member above stays as created for the steps below.
    const form = page.getByRole('form', { name: 'Create a user' });
    await form.getByLabel('Username').fill('noor');
    await form.getByLabel('First password').fill('noor-first-password');
    await form.getByLabel('Role').selectOption('member');
    await form.getByLabel('support', { exact: true }).check();
    await form.getByRole('button', { name: 'Create user' }).click();
    // Polls wait up to 15 s: each step is a server action and a re-render (slow on a loaded machine).
    const row = page.getByRole('listitem', { name: 'noor' });
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    const noor = async () => {
      const users = (await (await api('/v1/users')).json()) as {
        username: string;
        role: string;
        profiles: string[] | '*';
        disabled: boolean;
      }[];
      return users.find((user) => user.username === 'noor');
    };

    await row.getByLabel('Role of noor').selectOption('admin');
    await row.getByLabel('support', { exact: true }).uncheck();
    await row.getByLabel('All profiles').check();
    await row.getByRole('button', { name: 'Save noor' }).click();
    await expect.poll(async () => (await noor())?.role, { timeout: 15_000 }).toBe('admin');
    expect(await noor()).toMatchObject({ role: 'admin', profiles: '*', disabled: false });

    await row.getByRole('button', { name: 'Disable noor' }).click();
    await expect.poll(async () => (await noor())?.disabled, { timeout: 15_000 }).toBe(true);
    await expect.poll(() => row.getByText('Disabled', { exact: true }).count(), { timeout: 15_000 }).toBe(1);
    await row.getByRole('button', { name: 'Enable noor' }).click();
    await expect.poll(async () => (await noor())?.disabled, { timeout: 15_000 }).toBe(false);
    await expect.poll(() => row.getByText('Active', { exact: true }).count(), { timeout: 15_000 }).toBe(1);
  });

  it('creates an API token shown once with a copy button, and revokes it', async () => {
    await page.getByRole('link', { name: 'Tokens', exact: true }).click();
    await page.waitForURL((current) => current.pathname === '/admin/tokens');
    const form = page.getByRole('form', { name: 'Create an API token' });
    await form.getByLabel('Token name').fill('e2e-gateway');
    await form.getByLabel('Role').selectOption('member');
    await form.getByRole('button', { name: 'Create token' }).click();
    const secretField = page.getByTestId('new-token-secret');
    await expect.poll(() => secretField.count()).toBe(1);
    const secret = await secretField.inputValue();
    expect(secret.length).toBeGreaterThan(20);
    expect(await form.getByRole('button', { name: 'Copy token' }).count()).toBe(1);
    // The secret works, is listed nowhere, and the list shows the token by name.
    expect(await whoAmI(secret)).toBe(200);
    await expectAccessible(page);
    await screenshot(page, 'admin-tokens');
    await page.reload();
    expect(await page.getByTestId('new-token-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    const row = page.getByRole('row').filter({ hasText: 'e2e-gateway' });
    await row.getByText('Revoke…').click();
    await row.getByRole('button', { name: 'Revoke e2e-gateway' }).click();
    await expect.poll(() => row.textContent()).toContain('Revoked');
    expect(await whoAmI(secret)).toBe(401);
  });

  it('refuses a member every administrator page with a 404 and leaves them out of the navigation', async () => {
    await logOut();
    await signIn(page, stack, '/sessions', MEMBER);
    const nav = page.getByRole('navigation', { name: 'Primary' });
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Sessions',
      'Search',
      'Routes',
      'Gateways',
      'Profiles',
    ]);
    for (const path of [
      '/admin/users',
      '/admin/tokens',
      '/admin/import',
      '/receipts',
      '/receipts/reclaim?through=1',
      '/receipts/any-op',
    ]) {
      const response = await page.goto(url(path));
      expect(response?.status(), path).toBe(404);
      expect(await page.title()).toContain('Not found');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    }
    await expectAccessible(page);
    // What a member may read still opens.
    expect((await page.goto(url('/')))?.status()).toBe(200);
    expect((await page.goto(url('/sessions')))?.status()).toBe(200);
    await logOut();
  });

  it('answers HTTP 404, with its title, for a session that does not exist', async () => {
    await signIn(page, stack, '/settings/account');
    const response = await page.goto(url('/sessions/no-such-session'));
    expect(response?.status()).toBe(404);
    // Next streams a page's metadata after its shell: the title arrives with the page, not before it.
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Session not found · Statehouse');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Session not found');
    expect((await page.goto(url('/profiles/no-such-profile')))?.status()).toBe(404);
    expect((await page.goto(url('/no/such/page')))?.status()).toBe(404);
  });

  it('changes the password on the account page; the new one signs in, the old one no longer does', async () => {
    await page.goto(url('/settings/account'));
    const sessions = page.getByRole('region', { name: 'Signed-in sessions' });
    await expect.poll(() => sessions.getByText('This browser').count()).toBe(1);
    await expectAccessible(page);

    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not-my-password');
    await form.getByLabel('New password', { exact: true }).fill(NEW_ADMIN_PASSWORD);
    await form.getByLabel('Repeat the new password').fill(NEW_ADMIN_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect
      .poll(() => form.locator('.action-result').textContent(), { timeout: 15_000 })
      .toContain('The current password is wrong');

    await form.getByLabel('Current password').fill(ADMIN_PASSWORD);
    await form.getByLabel('New password', { exact: true }).fill(NEW_ADMIN_PASSWORD);
    await form.getByLabel('Repeat the new password').fill(NEW_ADMIN_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    // Hashing twice, then the page re-rendered (the other browsers' sessions end): slow on a loaded machine.
    await expect
      .poll(() => page.locator('.action-result').textContent(), { timeout: 15_000 })
      .toContain('Password changed');
    await screenshot(page, 'account');

    await logOut();
    await page.getByLabel('Username').fill(ADMIN_USERNAME);
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#login-error').textContent()).toContain('Wrong username or password');
    await signIn(page, stack, '/settings/account', { username: ADMIN_USERNAME, password: NEW_ADMIN_PASSWORD });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account');
  });
});
