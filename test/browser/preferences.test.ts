import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { expectAccessible, signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * What a person sets once and expects the dashboard to keep: the theme (system, light, dark), the
 * profile chosen in the switcher (across pages, with a count that matches the list), and the
 * navigation on an address nothing answers. Its own API and dashboard, demo data, signed in as admin.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
const url = (path: string) => `${stack.webUrl}${path}`;

/** Relative luminance of the page's background: dark themes sit far below light ones. */
async function backgroundLuminance(target: Page): Promise<number> {
  return target.evaluate(() => {
    const [r, g, b] = (getComputedStyle(document.body).backgroundColor.match(/\d+(\.\d+)?/g) ?? ['0', '0', '0'])
      .slice(0, 3)
      .map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  });
}

const themeAttribute = (target: Page) => target.evaluate(() => document.documentElement.dataset.theme ?? null);

describe('preferences that stick', () => {
  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack, '/');
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('a theme picked in the header overrides the system scheme, survives a reload, and "System" follows it again', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(url('/sessions'));
    const theme = page.getByRole('group', { name: 'Theme' });
    await expect.poll(() => theme.getByRole('radio', { name: 'System' }).isChecked()).toBe(true);
    expect(await themeAttribute(page)).toBeNull();
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.5);

    await theme.getByRole('radio', { name: 'Dark' }).click();
    await expect.poll(() => themeAttribute(page)).toBe('dark');
    expect(await backgroundLuminance(page)).toBeLessThan(0.2);
    await expectAccessible(page);

    // Rendered dark by the server from the first byte, with the system still asking for light.
    await page.reload();
    expect(await themeAttribute(page)).toBe('dark');
    expect(await backgroundLuminance(page)).toBeLessThan(0.2);
    expect(await page.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('radio', { name: 'Light' }).click();
    await expect.poll(() => themeAttribute(page)).toBe('light');
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.5);

    await page.getByRole('radio', { name: 'System' }).click();
    await expect.poll(() => themeAttribute(page)).toBeNull();
    expect(await backgroundLuminance(page)).toBeLessThan(0.2);
    await page.reload();
    expect(await themeAttribute(page)).toBeNull();
    await page.emulateMedia({ colorScheme: 'light' });
    // Two reloads and axe in both schemes: slow on a loaded 2-core machine.
  }, 180_000);

  it('the overview chart takes the picked theme’s colours', async () => {
    await page.goto(url('/'));
    const chart = page.locator('[data-chart-ready="true"]').first();
    await chart.waitFor();
    const bar = () =>
      page.evaluate(() => document.querySelector('.recharts-bar-rectangle path')?.getAttribute('fill') ?? null);
    await expect.poll(bar).not.toBeNull();
    const light = await bar();
    await page.getByRole('radio', { name: 'Dark' }).click();
    await expect.poll(bar).not.toBe(light);
    expect(await bar()).toMatch(/^rgb/);
    await page.getByRole('radio', { name: 'System' }).click();
  });

  it('the chosen profile sticks across pages, its count is what the list shows, and "All profiles" forgets it', async () => {
    await page.goto(url('/sessions'));
    const switcher = page.getByLabel('Profile', { exact: true });
    const option = await switcher.locator('option[value="support"]').textContent();
    const counted = Number(/\((\d+)\)/.exec(option ?? '')?.[1]);
    await switcher.selectOption('support');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL((address) => address.searchParams.get('profile') === 'support');
    const total = await page.getByTestId('session-total').textContent();
    expect(Number(/of ([\d,]+)/.exec(total ?? '')?.[1].replace(/,/g, ''))).toBe(counted);

    const nav = page.getByRole('navigation', { name: 'Primary' });
    for (const [label, path] of [
      ['Overview', '/'],
      ['Search', '/search'],
      ['Routes', '/routes'],
      ['Sessions', '/sessions'],
    ] as const) {
      await nav.getByRole('link', { name: label, exact: true }).click();
      await page.waitForURL(
        (address) => address.pathname === path && address.searchParams.get('profile') === 'support',
      );
      expect(await page.getByLabel('Profile', { exact: true }).inputValue()).toBe('support');
    }
    // Typed in the address bar too.
    await page.goto(url('/search'));
    expect(new URL(page.url()).searchParams.get('profile')).toBe('support');

    await page.getByLabel('Profile', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL((address) => !address.searchParams.has('profile'));
    await page
      .getByRole('navigation', { name: 'Primary' })
      .getByRole('link', { name: 'Overview', exact: true })
      .click();
    await page.waitForURL((address) => address.pathname === '/');
    expect(new URL(page.url()).searchParams.has('profile')).toBe(false);
  });

  it('an address nothing answers is a 404 that keeps the navigation', async () => {
    const response = await page.goto(url('/no-such-page/at-all'));
    expect(response?.status()).toBe(404);
    await expect.poll(() => page.getByRole('heading', { name: 'Page not found' }).isVisible()).toBe(true);
    expect(await page.getByRole('navigation', { name: 'Primary' }).getByRole('link').count()).toBeGreaterThan(3);
    await expectAccessible(page);
  });
});
