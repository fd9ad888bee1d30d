import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createAdminToken, type Stack } from './stack.js';

/** Shared steps of the browser tests: sign in, take screenshots, call the API "from elsewhere". */

export const SCREENSHOT_DIR = process.env.STATEHOUSE_SCREENSHOT_DIR ?? '/tmp/statehouse-screenshots';

export async function signIn(page: Page, stack: Stack, next = '/sessions'): Promise<void> {
  await page.goto(`${stack.webUrl}/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Username').fill(ADMIN_USERNAME);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
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
