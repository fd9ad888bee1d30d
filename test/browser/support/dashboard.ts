import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { accessibilityProblems } from './axe.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createAdminToken, REPO_ROOT, type Stack } from './stack.js';

/** Shared steps of the browser tests: sign in, take screenshots, call the API "from elsewhere". */

export const SCREENSHOT_DIR = process.env.STATEHOUSE_SCREENSHOT_DIR ?? '/tmp/statehouse-screenshots';

export async function signIn(
  page: Page,
  stack: Stack,
  next = '/sessions',
  credentials: { username: string; password: string } = { username: ADMIN_USERNAME, password: ADMIN_PASSWORD },
): Promise<void> {
  await page.goto(`${stack.webUrl}/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Username').fill(credentials.username);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === next.split('?')[0]);
}

/** Full-page screenshot; optionally dark, or at another width (restored afterwards). */
export async function screenshot(
  page: Page,
  name: string,
  options: { dark?: boolean; width?: number } = {},
): Promise<void> {
  const viewport = page.viewportSize();
  if (options.width) await page.setViewportSize({ width: options.width, height: 900 });
  if (options.dark) await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, animations: 'disabled' });
  await page.emulateMedia({ colorScheme: 'light' });
  if (viewport && options.width) await page.setViewportSize(viewport);
}

/** The API with an admin token minted by the real CLI (one per stack). */
export function apiClient(stack: Stack) {
  let token: Promise<string> | undefined;
  return async (path: string, init: RequestInit = {}): Promise<Response> => {
    token ??= createAdminToken(stack);
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${await token}`);
    if (init.body) headers.set('content-type', 'application/json');
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
}

/**
 * The README's pictures: the viewport only, at one fixed size, so every run's PNG has the same
 * dimensions. Every run takes them; `npm run pictures` (STATEHOUSE_README_PICTURES=1) writes them
 * into docs/images, other runs beside the other screenshots — the demo data moves with "now", so
 * writing them on every run would leave the repository changed after each `npm test`.
 */
export const README_IMAGE_DIR =
  process.env.STATEHOUSE_README_PICTURES === '1' ? join(REPO_ROOT, 'docs/images') : join(SCREENSHOT_DIR, 'readme');
const README_VIEWPORT = { width: 1280, height: 800 };

export async function readmePicture(
  page: Page,
  name: string,
  ready?: () => Promise<void>,
  { reload = true }: { reload?: boolean } = {},
): Promise<void> {
  const viewport = page.viewportSize();
  await page.setViewportSize(README_VIEWPORT);
  await page.emulateMedia({ colorScheme: 'light' });
  // A fresh load at this size: charts measure their boxes once, and nothing opened earlier stays
  // open. Not for a picture of what arrived while the page was open (a live transcript).
  if (reload) await page.reload();
  await page.waitForLoadState('networkidle');
  const charts = page.locator('[data-chart-ready]');
  for (const chart of await charts.all()) await expect.poll(() => chart.getAttribute('data-chart-ready')).toBe('true');
  await ready?.();
  await page.screenshot({ path: join(README_IMAGE_DIR, `${name}.png`), fullPage: false, animations: 'disabled' });
  if (viewport) await page.setViewportSize(viewport);
}

/** The page as it is now passes axe-core's WCAG 2 A/AA rules, in light and dark. */
export async function expectAccessible(page: Page): Promise<void> {
  const problems = await accessibilityProblems(page);
  expect(problems, `axe on ${page.url()}`).toEqual([]);
}

/**
 * Picks "All profiles" in the switcher, as a person would to stop filtering: the switcher
 * remembers a chosen profile for every other page, so a test that picked one puts it back.
 */
export async function showAllProfiles(page: Page): Promise<void> {
  await page.getByLabel('Profile', { exact: true }).selectOption('');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await page.waitForURL((url) => !url.searchParams.has('profile'));
}
