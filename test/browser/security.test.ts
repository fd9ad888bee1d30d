import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_NEXT } from '../web/redirect-corpus.js';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, type Stack, startStack } from './support/stack.js';

/**
 * The attacks of the security review, replayed against the real API and dashboard in Chromium
 * (docs/security.md): open redirects after sign-in, cross-origin posts to dashboard actions,
 * dashboard login sprays, and the security headers and CSP every page runs under.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let webOrigin: string;

const SESSION_COOKIE = 'statehouse_session';

/** A query value as an attacker's link carries it: as written, except what would end the value. */
const asQueryValue = (raw: string) => raw.replace(/[#&+ ]/g, (char) => encodeURIComponent(char));

async function sessionCookie(): Promise<string> {
  const cookie = (await browser.context.cookies(stack.webUrl)).find((entry) => entry.name === SESSION_COOKIE);
  if (!cookie) throw new Error('not signed in');
  return `${SESSION_COOKIE}=${cookie.value}`;
}

async function signInHere(username = ADMIN_USERNAME, password = ADMIN_PASSWORD): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Whether the API still knows this dashboard session. */
async function apiSessionAlive(cookie: string): Promise<boolean> {
  const me = await fetch(`${stack.apiUrl}/v1/auth/me`, { headers: { cookie } });
  return me.status === 200;
}

describe('security of the dashboard and the API in a browser', () => {
  beforeAll(async () => {
    stack = await startStack();
    webOrigin = new URL(stack.webUrl).origin;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('sends a nonce-based CSP and the security headers on dashboard pages, a fresh nonce each time', async () => {
    const nonces: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await fetch(`${stack.webUrl}/login`);
      expect(response.status).toBe(200);
      const policy = response.headers.get('content-security-policy') ?? '';
      const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
      expect(nonce).toBeTruthy();
      nonces.push(nonce!);
      expect(policy).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("object-src 'none'");
      expect(policy).toContain("base-uri 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(policy).not.toContain('unsafe-eval');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('same-origin');
      // Every script the page carries has this response's nonce.
      const html = await response.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it('sends the API security headers, and Swagger UI at /docs still renders under them', async () => {
    const response = await fetch(`${stack.apiUrl}/docs/`);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const spec = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
      tags: { name: string }[];
    };
    const operations = Object.values(spec.paths).flatMap((item) =>
      Object.values(item).filter((operation) => typeof operation?.operationId === 'string'),
    );
    const docs = await browser.context.newPage();
    await docs.goto(`${stack.apiUrl}/docs`);
    await expect.poll(() => docs.locator('.opblock').count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await expect.poll(() => docs.locator('.info .title').textContent()).toContain('Statehouse API');
    // Swagger UI loaded every operation of the document...
    const loaded = () =>
      docs.evaluate(
        () =>
          (
            window as unknown as { ui: { specSelectors: { operations(): { size: number } } } }
          ).ui.specSelectors.operations().size,
      );
    await expect.poll(loaded, { timeout: 20_000 }).toBe(operations.length);
    // ...and renders them: past 127 operations it lists only those in view (a virtualised list),
    // so the last tag's operations appear once the page is scrolled to its end.
    const lastTag = spec.tags.at(-1)!.name;
    await expect
      .poll(
        async () => {
          await docs.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
          return docs.locator(`[id^="operations-${lastTag}-"]`).count();
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(0);
    await docs.close();
  });

  // 36 sign-ins in one test: minutes on a loaded machine.
  it(`lands on a same-origin page after sign-in for every hostile next (${HOSTILE_NEXT.length} of them)`, {
    timeout: 300_000,
  }, async () => {
    const serverErrors: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 500 && response.url().startsWith(stack.webUrl)) {
        serverErrors.push(`${response.status()} ${response.url()}`);
      }
    });
    const landed: string[] = [];
    for (const raw of HOSTILE_NEXT) {
      await browser.context.clearCookies();
      const login = await page.goto(`${stack.webUrl}/login?next=${asQueryValue(raw)}`);
      expect(login?.status(), `login page for next=${raw}`).toBe(200);
      await signInHere();
      await page.waitForURL((url) => url.pathname !== '/login', { timeout: 20_000 });
      await page.waitForLoadState('domcontentloaded');
      const url = new URL(page.url());
      landed.push(`${raw.slice(0, 40)} → ${url.pathname}${url.search}`);
      expect(url.origin, `next=${raw} led to ${page.url()}`).toBe(webOrigin);
    }
    expect(serverErrors).toEqual([]);
    // The plainly hostile ones fell back to the default page.
    expect(landed).toContain('/%09/evil.example → /sessions');
    expect(landed).toContain('//x → /sessions');
    expect(landed).toContain('javascript:alert(1) → /sessions');
  });

  it('refuses cross-origin posts to dashboard pages and actions (cross-site, same-site, missing and foreign Origin)', async () => {
    await browser.context.clearCookies();
    await page.goto(`${stack.webUrl}/login?next=/sessions`);
    await signInHere();
    await page.waitForURL((url) => url.pathname === '/sessions');
    const cookie = await sessionCookie();
    // The logout action's id, from the server-rendered form (React replaces the form once hydrated).
    const html = await (await fetch(`${stack.webUrl}/sessions`, { headers: { cookie } })).text();
    const actionId = /name="\$ACTION_ID_([0-9a-f]+)"\s*\/?><button[^>]*>Log out</.exec(html)?.[1];
    expect(actionId).toBeTruthy();

    const refused: [string, Record<string, string>][] = [
      ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }],
      ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site', origin: 'http://sub.127.0.0.1.nip.io' }],
      ['no Origin', {}],
      ['a foreign Origin', { origin: 'https://evil.example' }],
      ['Origin: null', { origin: 'null' }],
    ];
    // The logout form posted as a page without JavaScript (or an attacker's auto-submitting form) posts it.
    const logout = (headers: Record<string, string>) => {
      const body = new FormData();
      body.set(`$ACTION_ID_${actionId}`, '');
      return fetch(`${stack.webUrl}/sessions`, {
        method: 'POST',
        headers: { cookie, ...headers },
        body,
        redirect: 'manual',
      });
    };
    for (const [name, headers] of refused) {
      const response = await logout(headers);
      expect(response.status, name).toBe(403);
      expect(await apiSessionAlive(cookie), `${name}: the session must survive`).toBe(true);
      const formPost = await fetch(`${stack.webUrl}/sessions`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: 'anything=1',
        redirect: 'manual',
      });
      expect(formPost.status, `${name} (a plain form post)`).toBe(403);
      // The import upload streams past proxy.ts (docs/security.md, "CSRF"): the API judges the
      // browser's Origin that the dashboard relays, and refuses it the same way.
      const upload = await fetch(`${stack.webUrl}/admin/import/upload?dryRun=true`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/octet-stream', ...headers },
        body: 'SQLite format 3\u0000',
        redirect: 'manual',
      });
      expect(upload.status, `${name} (the import upload)`).toBe(403);
      expect((await upload.json()).code, `${name} (the import upload)`).toBe('forbidden');
    }
    // Nothing was imported by any of those posts.
    const imports = await fetch(`${stack.apiUrl}/v1/imports`, { headers: { cookie } });
    expect(imports.status).toBe(200);
    expect((await imports.json()).items).toEqual([]);
    // From the dashboard's own origin the same action runs: the session ends.
    const ours = await logout({ origin: webOrigin, 'sec-fetch-site': 'same-origin' });
    expect(ours.status).toBe(303);
    expect(ours.headers.get('location')).toMatch(/\/login$/);
    expect(await apiSessionAlive(cookie)).toBe(false);
  });

  it('ran every page above without a CSP violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });

  // Last: it spends this browser address's login budget.
  it("throttles a dashboard login spray by the browser's address, whatever X-Forwarded-For it sends", {
    timeout: 300_000,
  }, async () => {
    await browser.context.clearCookies();
    let rotation = 0;
    // The spraying browser claims a new address on every request.
    await page.route('**/*', (route) =>
      route.continue({ headers: { ...route.request().headers(), 'x-forwarded-for': `203.0.113.${++rotation % 250}` } }),
    );
    const messages: string[] = [];
    await page.goto(`${stack.webUrl}/login`);
    // Until the address is throttled twice: the delays double (1 s, 2 s, 4 s…), so on a loaded
    // machine, where one sign-in takes longer than the first delays, a few more attempts are needed.
    const throttled = () => messages.filter((message) => message.includes('Too many attempts')).length;
    for (let index = 0; index < 24 && throttled() < 2; index++) {
      await signInHere(`sprayed-${index}`, 'Winter2026!');
      const alert = page.locator('#login-error');
      await expect.poll(() => alert.textContent()).toMatch(/Wrong username or password|Too many attempts/);
      messages.push((await alert.textContent()) ?? '');
      await page.goto(`${stack.webUrl}/login`);
    }
    await page.unroute('**/*');
    // Ten free failures from this address; then each further attempt waits twice as long as the last.
    expect(messages.slice(0, 10).every((message) => message.includes('Wrong username or password'))).toBe(true);
    expect(messages.slice(10).filter((message) => message.includes('Too many attempts')).length).toBeGreaterThanOrEqual(
      2,
    );
    // The API saw the browser's own address for every attempt, never a claimed one.
    const database = new Database(stack.databaseUrl.slice('file:'.length), { readonly: true });
    try {
      const addresses = database
        .prepare("select distinct address from login_attempts where account like 'sprayed-%'")
        .all() as { address: string }[];
      expect(addresses).toEqual([{ address: '127.0.0.1' }]);
    } finally {
      database.close();
    }
  });
});
