import { mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/axe.js';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import {
  apiClient,
  README_IMAGE_DIR,
  readmePicture,
  SCREENSHOT_DIR,
  screenshot,
  showAllProfiles,
  signIn,
} from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * Lineage, deletion with receipts, and profile administration, end to end. This file starts its own
 * API and dashboard (own database), so it never disturbs dashboard.test.ts. Inside it the steps are
 * ordered deliberately: the lineage step only reads the `support` profile, the deletion steps touch
 * only `default`, and the profile rename (support → helpdesk) runs last.
 */

// Demo data (libs/state/src/seed/demo-seed.ts).
const CHAIN = ['demo-support-02', 'demo-support-02-c1', 'demo-support-02-c2'] as const;
const BRANCH = 'demo-support-02-branch';
const WITH_DELEGATE = 'demo-default-01';
const DELEGATE = 'demo-default-01-research';

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;

const url = (path: string) => `${stack.webUrl}${path}`;
const onPath = (path: string) => (current: URL) => current.pathname === path;

describe('lineage, deletion and profiles in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    mkdirSync(README_IMAGE_DIR, { recursive: true });
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows the lineage of a compressed conversation and navigates it by clicking nodes', async () => {
    // The list shows the conversation once, as its tip.
    await page.goto(url('/sessions?profile=support'));
    await page.getByRole('link', { name: 'Summarise the incident from last night (support)' }).click();
    await page.waitForURL(onPath(`/sessions/${CHAIN[2]}`));

    const lineage = page.getByRole('region', { name: 'Lineage', exact: true });
    const legend = lineage.getByRole('list', { name: 'Edge kinds' });
    expect(await legend.getByRole('listitem').allTextContents()).toEqual([
      expect.stringContaining('compression'),
      expect.stringContaining('branch'),
      expect.stringContaining('reset'),
      expect.stringContaining('delegate'),
    ]);
    // Edges carry their kind as text: two compressions (root → c1 → c2) and one branch (off c1).
    const tree = lineage.locator('.lineage__tree');
    expect(await tree.locator('[data-edge-kind="compression"]').count()).toBe(2);
    expect(await tree.locator('[data-edge-kind="branch"]').count()).toBe(1);
    expect(await tree.locator('[data-edge-kind="compression"]').first().textContent()).toBe('compression');
    expect(await tree.locator('[data-edge-kind="branch"]').textContent()).toBe('branch');
    // The current session is highlighted and announced as the current page.
    const current = tree.locator('a[aria-current="page"]');
    expect(await current.getAttribute('data-node-id')).toBe(CHAIN[2]);

    // The compaction boundary is its own block in the transcript.
    const summary = page.locator('[data-display-kind="compaction_summary"]');
    await expect.poll(() => summary.count()).toBe(1);
    expect(await summary.textContent()).toContain('Compacted — summary of earlier conversation');

    await screenshot(page, 'lineage');
    await readmePicture(page, 'lineage');
    await screenshot(page, 'lineage-dark', { dark: true });
    await screenshot(page, 'lineage-mobile', { width: 375 });

    // Root: every node is a link named by its relation.
    await lineage.getByRole('link', { name: `Root of the lineage: ${CHAIN[0]}`, exact: true }).click();
    await page.waitForURL(onPath(`/sessions/${CHAIN[0]}`));
    await expect
      .poll(() => page.locator('.lineage__tree a[aria-current="page"]').getAttribute('data-node-id'))
      .toBe(CHAIN[0]);
    // The notice names the tip by its title, and links to it.
    const notice = page.getByRole('note');
    expect(await notice.textContent()).toContain('continues in Summarise the incident from last night (support)');
    expect(await notice.getByRole('link').first().getAttribute('href')).toBe(`/sessions/${CHAIN[2]}`);

    // Root → tip.
    await page
      .getByRole('region', { name: 'Lineage', exact: true })
      .getByRole('link', { name: /^Compression continuation of demo-support-02-c1: Summarise the incident/ })
      .click();
    await page.waitForURL(onPath(`/sessions/${CHAIN[2]}`));

    // Tip → branch (off the middle segment).
    await page
      .getByRole('region', { name: 'Lineage', exact: true })
      .getByRole('link', { name: /^Branch of demo-support-02-c1: Postmortem — executive summary/ })
      .click();
    await page.waitForURL(onPath(`/sessions/${BRANCH}`));
    expect(await page.getByTestId('session-title').textContent()).toBe('Postmortem — executive summary');
    await expect
      .poll(() => page.locator('.lineage__tree a[aria-current="page"]').getAttribute('data-node-id'))
      .toBe(BRANCH);
  });

  it('reads the whole compression chain as one conversation, with segment boundaries', async () => {
    await page.goto(url(`/sessions/${CHAIN[2]}`));
    await page.getByRole('link', { name: 'Whole conversation (3 segments)' }).click();
    await page.waitForURL((current) => current.searchParams.get('view') === 'conversation');

    const segments = page.getByRole('list', { name: 'Conversation segments' }).locator('> li');
    await expect.poll(() => segments.count()).toBe(3);
    expect(await segments.evaluateAll((items) => items.map((item) => item.getAttribute('data-segment-id')))).toEqual([
      ...CHAIN,
    ]);
    // Root first, with the opening question; two compaction boundaries; each segment links to itself.
    expect(await segments.first().textContent()).toContain(
      'Summarise the incident from last night for the status page.',
    );
    expect(await page.locator('[data-display-kind="compaction_summary"]').count()).toBe(2);
    // Hidden scaffolding (the root's system prompt) stays hidden in the chain view too.
    expect(await page.getByRole('list', { name: 'Conversation segments' }).textContent()).not.toContain(
      'You are a helpful operations agent.',
    );
    await page.getByRole('link', { name: `Open segment 2: ${CHAIN[1]}`, exact: true }).click();
    await page.waitForURL(onPath(`/sessions/${CHAIN[1]}`));
    await page.goBack();
    await page.waitForURL((current) => current.searchParams.get('view') === 'conversation');
    await screenshot(page, 'conversation');
  });

  it('previews, confirms and receipts the deletion of a session with a delegate child', async () => {
    await page.goto(url(`/sessions/${WITH_DELEGATE}`));
    await page.getByRole('link', { name: 'Delete conversation…' }).click();
    await page.waitForURL(onPath('/delete'));

    // The preview names both: the selected session and the sub-agent that cascades with it.
    const selected = page.locator(`[data-role="selected"][data-session-id="${WITH_DELEGATE}"]`);
    const cascade = page.locator(`[data-role="delegate_cascade"][data-session-id="${DELEGATE}"]`);
    await expect.poll(() => selected.count()).toBe(1);
    expect(await cascade.count()).toBe(1);
    expect(await selected.textContent()).toContain('selected');
    expect(await cascade.textContent()).toContain('delegate cascade');
    expect(await page.getByRole('list', { name: 'selected sessions' }).getByRole('listitem').count()).toBe(1);
    expect(await page.getByRole('list', { name: 'delegate cascade sessions' }).getByRole('listitem').count()).toBe(1);
    await screenshot(page, 'delete-preview');
    await screenshot(page, 'delete-preview-dark', { dark: true });
    await screenshot(page, 'delete-preview-mobile', { width: 375 });

    await page.getByRole('button', { name: 'Delete 2 sessions permanently' }).click();
    await page.waitForURL(onPath('/delete/done'));
    const operationId = (await page.getByTestId('receipt-operation-id').textContent()) ?? '';
    expect(operationId).toMatch(/^[A-Za-z0-9._:-]+$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Deleted 2 sessions');
    await screenshot(page, 'delete-done');
    for (const id of [WITH_DELEGATE, DELEGATE]) expect((await api(`/v1/sessions/${id}`)).status).toBe(404);

    // The same receipt, found on the Receipts page by its operation id.
    await page.getByRole('link', { name: 'Receipts', exact: true }).click();
    await page.waitForURL(onPath('/receipts'));
    const row = page.locator(`a[data-operation-id="${operationId}"]`);
    await expect.poll(() => row.count()).toBe(1);
    // Newest first, and the actor by name (the signed-in admin), not as `user:<id>`.
    const tableRow = page.getByRole('row').filter({ has: row });
    expect(await page.locator('.receipts-table__seq').first().textContent()).toBe(
      await tableRow.locator('.receipts-table__seq').textContent(),
    );
    expect(await tableRow.locator('.receipts-table__actor').textContent()).toBe('admin');
    await expect.poll(() => page.getByTestId('receipts-live-status').textContent()).toBe('Live');
    await screenshot(page, 'receipts');
    await screenshot(page, 'receipts-dark', { dark: true });
    await screenshot(page, 'receipts-mobile', { width: 375 });

    await row.click();
    await page.waitForURL(onPath(`/receipts/${operationId}`));
    expect(await page.getByTestId('receipt-operation-id').textContent()).toBe(operationId);
    const identities = page.getByRole('table', { name: 'Identities of the removed sessions' });
    const identityRow = (id: string) =>
      identities.getByRole('row').filter({ has: page.locator(`[data-identity-id="${id}"]`) });
    expect(await identityRow(WITH_DELEGATE).locator('[data-identity-role]').textContent()).toBe('selected');
    expect(await identityRow(DELEGATE).locator('[data-identity-role]').textContent()).toBe('delegate cascade');
    await screenshot(page, 'receipt-detail');
    await screenshot(page, 'receipt-detail-dark', { dark: true });
  });

  it('counts receipts written elsewhere live, from the watch stream', async () => {
    await page.goto(url('/receipts'));
    await expect.poll(() => page.getByTestId('receipts-live-status').textContent()).toBe('Live');
    const created = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        id: 'e2e-live',
        profile: 'default',
        source: 'cli',
        messages: [{ role: 'user', content: 'x' }],
      }),
    });
    expect(created.status).toBe(201);
    const { revision, generation } = (await created.json()) as { revision: number; generation: number };
    const deleted = await api('/v1/sessions/e2e-live', {
      method: 'DELETE',
      headers: { 'if-match': `"${revision}"`, 'x-expected-generation': String(generation) },
    });
    expect(deleted.status).toBe(200);
    await expect.poll(() => page.getByTestId('receipts-new-count').textContent(), { timeout: 20_000 }).toBe('1');
    const highWater = Number((await page.getByTestId('receipts-high-water').textContent())?.replace('#', ''));
    await page.getByTestId('receipts-live').getByRole('link', { name: 'Show' }).click();
    await page.waitForURL((current) => current.pathname === '/receipts' && current.searchParams.has('after'));
    await expect.poll(() => page.locator('.receipts-table__seq').allTextContents()).toEqual([`#${highWater}`]);
  });

  it('refuses to delete a busy session and says why', async () => {
    const created = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({ id: 'e2e-busy', profile: 'default', source: 'cli', title: 'Worker session under load' }),
    });
    expect(created.status).toBe(201);
    const turn = await api('/v1/sessions/e2e-busy/turns', {
      method: 'POST',
      body: JSON.stringify({ holder: 'worker-7@host-a', ttlSeconds: 600 }),
    });
    expect(turn.status).toBe(201);

    await page.goto(url('/sessions?profile=default&q=under%20load'));
    const row = page.getByRole('list', { name: 'Sessions' }).getByRole('listitem').filter({ hasText: 'e2e-busy' });
    expect(await row.textContent()).toContain('Busy');
    await page.goto(url('/sessions/e2e-busy'));
    expect(await page.getByText('Busy — an agent turn is running').count()).toBe(1);
    expect(await page.locator('.busy-notice').textContent()).toContain('worker-7@host-a');

    await page.getByRole('link', { name: 'Delete conversation…' }).click();
    await page.waitForURL(onPath('/delete'));
    await page.getByRole('button', { name: /permanently$/ }).click();
    const refusal = page.locator('.action-result');
    await expect.poll(() => refusal.textContent()).toContain('Refused: the session is busy');
    expect(await refusal.textContent()).toContain('409 session_busy');
    expect((await api('/v1/sessions/e2e-busy')).status).toBe(200);
  });

  it('lists gateways with last-seen and liveness, and passes axe', async () => {
    const heartbeat = (id: string) =>
      api(`/v1/gateways/${id}/heartbeat`, {
        method: 'PUT',
        body: JSON.stringify({ profile: 'edge', host: 'edge-host', pid: 4321, startedAt: new Date().toISOString() }),
      });
    expect((await heartbeat('gw-live')).status).toBe(200);
    expect((await heartbeat('gw-gone')).status).toBe(200);
    const owned = await api('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({ profile: 'edge', source: 'telegram', gatewayId: 'gw-live', chatType: 'dm', chatId: 'e1' }),
    });
    expect(owned.status).toBe(201);
    // A gateway that stopped heartbeating ten minutes ago (the store is the stack's own SQLite file).
    const db = new Database(stack.databaseUrl.replace(/^file:/, ''));
    try {
      db.prepare('update gateways set last_seen_at = ? where id = ?').run(Date.now() - 10 * 60_000, 'gw-gone');
    } finally {
      db.close();
    }

    await page.goto(url('/gateways?profile=edge'));
    await page.getByRole('heading', { name: 'Gateways', level: 1 }).waitFor();
    const list = page.getByRole('list', { name: 'Gateways' });
    const rows = list.getByRole('listitem');
    expect(await rows.count()).toBe(2);
    const live = rows.filter({ has: page.locator('[data-gateway-id="gw-live"]') });
    const gone = rows.filter({ has: page.locator('[data-gateway-id="gw-gone"]') });
    expect(await live.textContent()).toContain('Alive');
    expect(await live.textContent()).toContain('1 open session');
    expect(await live.textContent()).toContain('edge-host · pid 4321');
    expect(await gone.textContent()).toContain('Silent');
    expect(await gone.textContent()).toMatch(/last seen 10 min/);
    // The navigation names the section as the current page.
    expect(await page.getByRole('link', { name: 'Gateways', exact: true }).getAttribute('aria-current')).toBe('page');

    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'gateways');
    await screenshot(page, 'gateways-dark', { dark: true });
    await screenshot(page, 'gateways-mobile', { width: 375 });
  });

  it('renames a profile and shows its sessions and routes under the new name', async () => {
    await page.goto(url('/profiles'));
    await screenshot(page, 'profiles');
    await screenshot(page, 'profiles-dark', { dark: true });
    await screenshot(page, 'profiles-mobile', { width: 375 });

    await page.getByRole('link', { name: 'support', exact: true }).click();
    await page.waitForURL(onPath('/profiles/support'));
    await page.getByLabel('New name').fill('helpdesk');
    await page.getByRole('button', { name: 'Preview rename' }).click();
    await page.waitForURL((current) => current.searchParams.get('rename') === 'helpdesk');
    const preview = page.getByTestId('rename-preview');
    expect(await preview.textContent()).toContain('11 sessions');
    expect(await preview.textContent()).toMatch(/\d+ routes move/);
    await screenshot(page, 'profile-rename-preview');

    await page.getByRole('button', { name: 'Rename support to helpdesk' }).click();
    await page.waitForURL(onPath('/profiles/helpdesk'));
    expect(await page.getByRole('status').first().textContent()).toContain('Renamed “support” to “helpdesk”');

    // The sessions list, filtered by the new profile (through the header's switcher).
    await page.goto(url('/sessions'));
    await page.getByLabel('Profile').selectOption('helpdesk');
    // The switcher navigates on an explicit submit only (arrow keys must not leave the page).
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForURL((current) => current.searchParams.get('profile') === 'helpdesk');
    const rows = page.getByRole('list', { name: 'Sessions' }).locator('.session-row__id');
    await expect.poll(() => rows.count()).toBeGreaterThan(5);
    for (const id of await rows.allTextContents()) expect(id).toMatch(/^demo-support-/);

    // Routes moved with their keys: agent:support:… became agent:helpdesk:….
    await page.getByRole('link', { name: 'Routes', exact: true }).click();
    await page.waitForURL(onPath('/routes'));
    await page.getByLabel('Profile').selectOption('helpdesk');
    // The switcher navigates on an explicit submit only (arrow keys must not leave the page).
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForURL(
      (current) => current.pathname === '/routes' && current.searchParams.get('profile') === 'helpdesk',
    );
    const keys = page.getByRole('list', { name: 'Routes' }).locator('[data-session-key]');
    await expect.poll(() => keys.count()).toBeGreaterThan(0);
    for (const key of await keys.evaluateAll((items) => items.map((item) => item.getAttribute('data-session-key')))) {
      expect(key).toMatch(/^agent:helpdesk:/);
    }
    await screenshot(page, 'routes');
    await showAllProfiles(page);
    await screenshot(page, 'routes-dark', { dark: true });
    await screenshot(page, 'routes-mobile', { width: 375 });
  });

  it('ran every page under the dashboard CSP without a violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});
