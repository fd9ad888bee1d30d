import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { expectAccessible, README_IMAGE_DIR, readmePicture, showAllProfiles } from './support/dashboard.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createAdminToken, type Stack, startStack } from './support/stack.js';

/**
 * The dashboard end to end: real API, real Next.js production build, real Chromium. The steps run
 * in order and share one signed-in page, like a person working through the dashboard.
 */

const SCREENSHOT_DIR = process.env.STATEHOUSE_SCREENSHOT_DIR ?? '/tmp/statehouse-screenshots';
// Demo data (libs/state/src/seed/demo-seed.ts): in profile `support`, two conversations came in over discord.
const SUPPORT_DISCORD_SESSION = 'demo-support-07';
const HIDDEN_SYSTEM_PROMPT = 'You are a helpful operations agent.';
const VIEWER_ZONE = 'America/New_York';

let stack: Stack;
let browser: TestBrowser;
let page: Page;

async function screenshot(name: string, options: { dark?: boolean; width?: number } = {}): Promise<void> {
  const viewport = page.viewportSize();
  if (options.width) await page.setViewportSize({ width: options.width, height: 900 });
  if (options.dark) await page.emulateMedia({ colorScheme: 'dark' });
  // animations: 'disabled' finishes colour transitions, so a dark capture is not caught mid-fade.
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, animations: 'disabled' });
  await page.emulateMedia({ colorScheme: 'light' });
  if (viewport && options.width) await page.setViewportSize(viewport);
}

let adminToken: Promise<string> | undefined;
/** One API token per run, minted by the real CLI, for changes "made elsewhere". */
const apiToken = () => {
  adminToken ??= createAdminToken(stack);
  return adminToken;
};

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${await apiToken()}`);
  if (init.body) headers.set('content-type', 'application/json');
  return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
}

async function apiPatchSession(id: string, body: object): Promise<{ revision: number }> {
  const current = await api(`/v1/sessions/${id}`);
  expect(current.status).toBe(200);
  const { revision } = (await current.json()) as { revision: number };
  const response = await api(`/v1/sessions/${id}`, {
    method: 'PATCH',
    headers: { 'if-match': `"${revision}"` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { revision: number };
}

describe('dashboard in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    mkdirSync(README_IMAGE_DIR, { recursive: true });
    stack = await startStack();
    // The viewer is in New York: times and day separators follow the browser's zone, not UTC.
    browser = await launchBrowser({ timezoneId: VIEWER_ZONE });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('sends a signed-out visitor to the login page and keeps where they were going', async () => {
    await page.goto(`${stack.webUrl}/sessions?status=open`);
    await page.waitForURL(/\/login\?next=/);
    expect(new URL(page.url()).searchParams.get('next')).toBe('/sessions?status=open');
    await screenshot('login');
  });

  it('rejects a wrong password with a clear message', async () => {
    await page.getByLabel('Username').fill(ADMIN_USERNAME);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#login-error').textContent()).toContain('Wrong username or password');
  });

  it('logs in as admin and shows who is signed in', async () => {
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/sessions' && url.searchParams.get('status') === 'open');
    await expect.poll(() => page.getByTestId('current-user').textContent()).toContain(ADMIN_USERNAME);
    // The cookie is the dashboard's own, httpOnly and SameSite=Strict; scripts cannot read it.
    const cookies = await browser.context.cookies(stack.webUrl);
    const session = cookies.find((cookie) => cookie.name === 'statehouse_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Strict');
    expect(await page.evaluate(() => document.cookie)).not.toContain('statehouse_session');

    // Keyboard users get a skip link first.
    await page.reload();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  });

  it('filters the list by profile and source, with the state in the URL', async () => {
    await page.goto(`${stack.webUrl}/sessions?includeChildren=true`);
    await screenshot('sessions-all-profiles');
    await page.goto(`${stack.webUrl}/sessions`);
    await page.getByLabel('Profile').selectOption('support');
    // The switcher navigates on an explicit submit only (arrow keys must not leave the page).
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('profile') === 'support');
    await page.getByLabel('Source').selectOption('discord');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('source') === 'discord');
    expect(new URL(page.url()).searchParams.get('profile')).toBe('support');

    const rows = page.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(2);
    for (const text of await rows.allTextContents()) {
      expect(text).toContain('demo-support-');
      expect(text).toContain('discord');
    }
    await screenshot('sessions-list');
    await screenshot('sessions-list-dark', { dark: true });
    await screenshot('sessions-list-mobile', { width: 375 });
    await showAllProfiles(page);
  });

  it('pages through the list with keyset cursors kept in the URL', async () => {
    await page.goto(`${stack.webUrl}/sessions?limit=5`);
    const rows = page.getByRole('list', { name: 'Sessions' }).locator('.session-row__id');
    await expect.poll(() => rows.count()).toBe(5);
    const firstPage = await rows.allTextContents();

    await page.getByRole('link', { name: 'Next page →' }).click();
    await page.waitForURL((url) => url.searchParams.has('cursor') && url.searchParams.get('limit') === '5');
    await expect.poll(async () => (await rows.allTextContents()).join()).not.toBe(firstPage.join());
    const secondPage = await rows.allTextContents();
    expect(secondPage).toHaveLength(5);
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);

    await page.getByRole('link', { name: 'First page' }).click();
    await page.waitForURL((url) => !url.searchParams.has('cursor'));
    await expect.poll(async () => (await rows.allTextContents()).join()).toBe(firstPage.join());
  });

  it('shows an empty state when nothing matches', async () => {
    await page.goto(`${stack.webUrl}/sessions?profile=support&source=no-such-surface`);
    await expect.poll(() => page.getByText('No sessions match these filters').count()).toBe(1);
  });

  it('opens a session, renames it, and reports an edit made elsewhere as a revision conflict', async () => {
    await page.goto(`${stack.webUrl}/sessions?profile=support&source=discord`);
    await page.getByRole('link', { name: /Customer asks about data export/ }).click();
    await page.waitForURL(`**/sessions/${SUPPORT_DISCORD_SESSION}`);

    const title = page.getByTestId('session-title');
    const firstTitle = `Data export options ${Date.now()}`;
    await page.getByLabel('Title').fill(firstTitle);
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => title.textContent()).toBe(firstTitle);
    await expect.poll(() => page.locator('.action-result').textContent()).toContain('Renamed to');
    const renderedRevision = Number(await page.getByTestId('session-revision').textContent());

    // Someone else changes the session through the API while this page stays open.
    const moved = await apiPatchSession(SUPPORT_DISCORD_SESSION, { pinned: true });
    expect(moved.revision).toBeGreaterThan(renderedRevision);

    await page.getByLabel('Title').fill('A second rename that must not win');
    await page.getByRole('button', { name: 'Rename' }).click();
    const conflict = page.locator('.action-result');
    await expect.poll(() => conflict.textContent()).toContain('changed since you opened it');
    expect(await conflict.textContent()).toContain(`now at revision ${moved.revision}`);
    expect(await title.textContent()).toBe(firstTitle);
    expect(await page.getByLabel('Title').inputValue()).toBe('A second rename that must not win');
    await screenshot('session-conflict');

    // "Reload" shows the other change (pinned) and the current revision.
    await conflict.getByRole('link', { name: 'Reload' }).click();
    await expect.poll(() => page.getByTestId('session-revision').textContent()).toBe(String(moved.revision));

    // Titles are unique per profile: taking another session's title is refused and said so.
    await page.getByLabel('Title').fill('Deploy checklist for the billing service (support)');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => page.locator('.action-result').textContent()).toContain('already in use');
    expect(await title.textContent()).toBe(firstTitle);

    await page.reload();
    await screenshot('session-detail');
    await screenshot('session-detail-dark', { dark: true });
    await screenshot('session-detail-mobile', { width: 375 });
  });

  it('keeps hidden rows out of the transcript until the URL asks for them', async () => {
    await page.goto(`${stack.webUrl}/sessions/${SUPPORT_DISCORD_SESSION}`);
    const transcript = page.getByRole('list', { name: 'Messages' });
    await expect.poll(() => transcript.getByRole('article').count()).toBeGreaterThan(3);
    expect(await transcript.getByText(HIDDEN_SYSTEM_PROMPT).count()).toBe(0);

    await page.getByRole('link', { name: 'Include hidden rows' }).click();
    await page.waitForURL((url) => url.searchParams.get('includeHidden') === 'true');
    const hiddenRow = transcript.getByRole('article').filter({ hasText: HIDDEN_SYSTEM_PROMPT });
    await expect.poll(() => hiddenRow.count()).toBe(1);
    expect(await hiddenRow.textContent()).toContain('Hidden');

    await page.getByRole('link', { name: 'Visible only' }).click();
    await page.waitForURL((url) => !url.searchParams.has('includeHidden'));
    await expect.poll(() => transcript.getByText(HIDDEN_SYSTEM_PROMPT).count()).toBe(0);
  });

  it('pages through a long transcript and opens a deep link on the page that holds the message', async () => {
    const lines = Array.from({ length: 120 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Line ${index + 1}`,
    }));
    const created = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: 'e2e-long',
        profile: 'default',
        source: 'cli',
        title: 'Long transcript',
        messages: lines,
      }),
    });
    expect(created.status).toBe(201);
    const messages = await api('/v1/sessions/e2e-long/messages?limit=200');
    const ids = ((await messages.json()) as { items: { id: number }[] }).items.map((message) => message.id);
    expect(ids).toHaveLength(120);

    const articles = page.getByRole('list', { name: 'Messages' }).getByRole('article');
    const firstLine = () => articles.first().locator('.message__text').textContent();
    await page.goto(`${stack.webUrl}/sessions/e2e-long`);
    await expect.poll(() => articles.count()).toBe(50);
    expect(await firstLine()).toBe('Line 1');
    // Messages are numbered within the session, not by store-wide ids.
    expect(await page.locator('.pagination__status').first().textContent()).toBe('Messages #1–#50');

    await page.getByRole('link', { name: 'Later →' }).first().click();
    await page.waitForURL((url) => url.searchParams.get('after') === String(ids[49]));
    await expect.poll(firstLine).toBe('Line 51');
    await page.getByRole('link', { name: '← Earlier' }).first().click();
    await page.waitForURL((url) => url.searchParams.get('before') === String(ids[50]));
    await expect.poll(firstLine).toBe('Line 1');
    await page.getByRole('link', { name: 'Latest' }).first().click();
    await page.waitForURL((url) => url.searchParams.get('before') === 'latest');
    await expect.poll(() => articles.last().locator('.message__text').textContent()).toBe('Line 120');

    // A link to message 100 opens the page that holds it, scrolled to it and highlighted.
    const deep = ids[99];
    await page.goto(`${stack.webUrl}/sessions/e2e-long?at=${deep}#m-${deep}`);
    const target = page.locator(`#m-${deep}`);
    await expect.poll(() => target.getAttribute('class')).toContain('message--highlighted');
    expect(await target.locator('.message__text').textContent()).toBe('Line 100');
    expect(await firstLine()).toBe('Line 98');
    const inView = await target.evaluate((element) => {
      const box = element.getBoundingClientRect();
      return box.top >= 0 && box.top < window.innerHeight;
    });
    expect(inView).toBe(true);
  });

  it('searches CJK text and opens the hit highlighted in its transcript', async () => {
    await page.goto(`${stack.webUrl}/search`);
    await page.getByLabel('Search for').fill('会议');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === '会议');

    const hits = page.locator('.hit');
    await expect.poll(() => hits.count()).toBeGreaterThan(0);
    // Grouped by conversation, each group with its count; the total is the API's (bounded) count.
    const groups = page.getByRole('list', { name: 'Conversations with results' }).locator(':scope > li');
    const counts = await groups.getByTestId('hit-group-count').allTextContents();
    const counted = counts.reduce((sum, text) => sum + Number.parseInt(text, 10), 0);
    expect(counted).toBe(await hits.count());
    expect(await page.getByTestId('search-summary').textContent()).toMatch(
      /^\d+\+? matching messages?( and \d+ matching titles?)? for “会议”/,
    );
    expect(await hits.first().locator('mark').first().textContent()).toBe('会议');
    await screenshot('search');

    const link = hits.first().getByRole('link');
    const href = (await link.getAttribute('href')) ?? '';
    const messageId = new URL(href, stack.webUrl).searchParams.get('at');
    expect(href).toContain(`#m-${messageId}`);
    await link.click();
    await page.waitForURL((url) => url.pathname.startsWith('/sessions/') && url.searchParams.get('at') === messageId);
    const target = page.locator(`#m-${messageId}`);
    await expect.poll(() => target.getAttribute('class')).toContain('message--highlighted');
    expect(await target.textContent()).toContain('会议');
    await screenshot('search-hit');
  });

  it('counts search results truly and shows tool output as the transcript does', async () => {
    const answer = (await (await api('/v1/search?q=results&limit=1')).json()) as {
      total: { count: number; exact: boolean };
    };
    await page.goto(`${stack.webUrl}/search?q=results`);
    const expected = `${answer.total.count}${answer.total.exact ? '' : '+'} matching message`;
    await expect.poll(() => page.getByTestId('search-summary').textContent()).toContain(expected);
    await page.goto(`${stack.webUrl}/search?q=results&role=tool`);
    const tool = page.locator('.hit pre.hit__snippet--tool');
    await expect.poll(() => tool.count()).toBeGreaterThan(0);
    expect(await tool.first().locator('mark').first().textContent()).toMatch(/results/i);
  });

  it('renders Markdown safely: a GFM table, highlighted code, and hostile input shown as text', async () => {
    const reply = [
      '| Region | p95 |',
      '| --- | --- |',
      '| eu-west | 120 ms |',
      '| us-east | 95 ms |',
      '',
      '```ts',
      'const limit: number = 40; // pool size',
      '```',
      '',
      '<script>window.__pwned = "script"</script>',
      '[click me](javascript:window.__pwned="link")',
      '<img src="x" onerror="window.__pwned = \'img\'">',
      '![tracker](javascript:alert(1))',
    ].join('\n');
    const created = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: 'e2e-markdown',
        profile: 'default',
        source: 'cli',
        title: 'Markdown and hostile input',
        messages: [
          { role: 'user', content: 'Latency by region, please — and a code sample.' },
          { role: 'assistant', content: reply },
          { role: 'tool', toolName: 'shell', content: '**not bold**\n  indented output' },
        ],
      }),
    });
    expect(created.status).toBe(201);
    await page.goto(`${stack.webUrl}/sessions/e2e-markdown`);
    const answer = page.locator('article[data-role="assistant"]');
    const table = answer.getByRole('table');
    await expect.poll(() => table.count()).toBe(1);
    expect(await table.locator('th').allTextContents()).toEqual(['Region', 'p95']);
    expect(await table.locator('tbody tr').count()).toBe(2);
    const code = answer.locator('pre code.hljs.language-ts');
    expect(await code.textContent()).toContain('const limit: number = 40;');
    expect(await code.locator('.hljs-keyword').first().textContent()).toBe('const');
    expect(await code.locator('.hljs-comment').textContent()).toBe('// pool size');

    // Nothing hostile ran or loads; the HTML is there as text, the script link lost its URL.
    expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await answer.locator('script, img, iframe').count()).toBe(0);
    expect(await answer.textContent()).toContain('<script>window.__pwned = "script"</script>');
    expect(await answer.textContent()).toContain('<img src="x" onerror=');
    const hrefs = await answer.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs.filter((href) => href?.toLowerCase().includes('javascript'))).toEqual([]);
    expect(await answer.getByText('click me').count()).toBe(1);

    // Tool output is verbatim monospace, not Markdown.
    const tool = page.locator('article[data-role="tool"]');
    await tool.locator('summary').first().click();
    expect(await tool.locator('pre').first().textContent()).toBe('**not bold**\n  indented output');
    await screenshot('transcript-markdown');
  });

  it('separates days at midnight in the viewer’s time zone', async () => {
    // 23:50 and 00:10 in New York, three days ago: one UTC day, two days for this viewer.
    const day = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 3 * 86_400_000);
    const localMidnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 5);
    const before = new Date(localMidnight - 10 * 60_000).toISOString();
    const after = new Date(localMidnight + 10 * 60_000).toISOString();
    const created = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: 'e2e-midnight',
        profile: 'default',
        source: 'cli',
        title: 'Across midnight',
        messages: [
          { role: 'user', content: 'Still up?', timestamp: before },
          { role: 'assistant', content: 'Still up.', timestamp: before },
          { role: 'user', content: 'Good morning.', timestamp: after },
        ],
      }),
    });
    expect(created.status).toBe(201);
    await page.goto(`${stack.webUrl}/sessions/e2e-midnight`);
    const separators = page.locator('[data-day-separator] time');
    await expect.poll(() => separators.count()).toBe(2);
    const dayName = (iso: string) =>
      new Intl.DateTimeFormat('en-GB', {
        weekday: 'long',
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        timeZone: VIEWER_ZONE,
      }).format(new Date(iso));
    expect(await separators.allTextContents()).toEqual([dayName(before), dayName(after)]);
    // Times of day are the viewer's too.
    const times = await page.locator('.message__header time').allTextContents();
    expect(times).toEqual(['23:50', '23:50', '00:10']);
    expect(await page.locator('.message__permalink').allTextContents()).toEqual(['#1', '#2', '#3']);
  });

  it('shows a demo transcript with Markdown for the README', async () => {
    await page.goto(`${stack.webUrl}/sessions/demo-default-01`);
    await expect.poll(() => page.locator('[data-day-separator]').count()).toBeGreaterThan(0);
    // The picture shows the reply with a Markdown list and task items, a little below the header.
    await readmePicture(page, 'transcript', () =>
      page
        .locator('article[data-role="assistant"]')
        .filter({ hasText: 'Before deploying billing v2' })
        .evaluate((element) => window.scrollTo(0, element.getBoundingClientRect().top + window.scrollY - 240)),
    );
    await expectAccessible(page);
  });

  it('[session.tool-pins] shows the runtime state on the session page: tools offered, model configuration, compression deadline, delegations', async () => {
    await page.goto(`${stack.webUrl}/sessions/demo-default-01`);
    const runtime = page.getByRole('region', { name: 'Runtime' });
    const tools = runtime.getByRole('list', { name: 'Tools offered' });
    expect(await tools.locator('li').allTextContents()).toEqual([
      'shell',
      'read_file',
      'write_file',
      'web_search',
      'delegate_task',
    ]);
    await runtime.getByText('3 settings').click();
    await expect.poll(() => runtime.locator('.runtime-config__json').textContent()).toContain('"max_iterations": 90');
    const started = runtime.getByRole('list', { name: 'Delegations this session started' });
    await expect.poll(() => started.locator('li').count()).toBe(2);
    expect(await started.textContent()).toContain('demo-default-01-rollback-research');
    expect(await started.textContent()).toContain('delivered');
    expect(await started.textContent()).toContain('running');
    expect(await runtime.getByRole('link', { name: 'demo-default-01-research' }).getAttribute('href')).toBe(
      '/sessions/demo-default-01-research',
    );
    await expectAccessible(page);

    // The chain's tip holds back compression until its deadline; its sub-agent page names the origin.
    await page.goto(`${stack.webUrl}/sessions/demo-support-02-c2`);
    const tip = page.getByRole('region', { name: 'Runtime' });
    expect(await tip.textContent()).toContain('In effect');
    expect(await tip.textContent()).toContain('the summary model timed out');
    await page.goto(`${stack.webUrl}/sessions/demo-default-01-research`);
    const child = page.getByRole('region', { name: 'Runtime' });
    expect(await child.getByRole('list', { name: 'Delegations this session works on' }).textContent()).toContain(
      'Works for demo-default-01',
    );
  });

  it('logs out and is signed out afterwards', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/login/);
    await page.goto(`${stack.webUrl}/sessions`);
    await page.waitForURL(/\/login\?next=%2Fsessions/);
  });

  it('ran every page under the dashboard CSP without a violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});
