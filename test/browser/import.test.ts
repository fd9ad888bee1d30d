import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHermesScenario } from '@statehouse/state/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { SCREENSHOT_DIR, screenshot, signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * The Import page end to end: an administrator chooses a Hermes state.db, uploads it (the dashboard
 * streams it on to the API), follows the run and reads the report. Own API, dashboard and database.
 */
let stack: Stack;
let browser: TestBrowser;
let page: Page;
let fixtures: string;

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's WCAG 2 A/AA rules on the page as it is now. */
async function axeViolations(target: Page): Promise<string[]> {
  await target.addScriptTag({ path: AXE });
  const violations = await target.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(options: unknown): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return violations;
}

async function uploadAndWait(file: string, profile?: string): Promise<void> {
  await page.goto(`${stack.webUrl}/admin/import`);
  await page.getByLabel('Hermes state.db', { exact: true }).setInputFiles(file);
  if (profile) await page.getByLabel('Profile for sessions without one').fill(profile);
  await page.getByRole('button', { name: 'Upload and import' }).click();
  await page.waitForURL((url) => url.pathname === '/admin/import' && url.searchParams.has('run'));
  await page
    .getByTestId('import-state')
    .filter({ hasText: /Finished|Failed|Interrupted/ })
    .waitFor({ timeout: 30_000 });
}

describe('the Import page', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    fixtures = mkdtempSync(join(tmpdir(), 'statehouse-import-e2e-'));
    buildHermesScenario(join(fixtures, 'state.db'), 30).close();
    writeFileSync(join(fixtures, 'notes.db'), 'not a database at all');
    stack = await startStack();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    if (fixtures) rmSync(fixtures, { recursive: true, force: true });
  });

  it('is in the navigation for administrators and passes axe before anything is uploaded', async () => {
    await page.goto(`${stack.webUrl}/sessions`);
    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/admin/import');
    await page.getByRole('heading', { name: 'Import', level: 1, exact: true }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it('uploads a Hermes fixture, follows the run and shows the report with links and warnings', async () => {
    await uploadAndWait(join(fixtures, 'state.db'), 'gamma');
    expect(await page.getByTestId('import-state').textContent()).toBe('Finished');
    expect(await page.getByTestId('import-sessions-created').textContent()).toBe('18');
    expect(await page.getByTestId('import-messages-created').textContent()).toBe('20');
    expect(await page.getByTestId('import-finished').textContent()).toMatch(/Import finished\. 18 sessions created/);
    const warnings = await page.getByTestId('import-warning-list').getByRole('listitem').allTextContents();
    expect(warnings).toContain(
      'session unk-child: the kind of its edge to unk-parent is unknown (parent ended cli_close, source cli); edge kept without a kind',
    );
    expect(await page.getByTestId('import-progress').locator('progress').getAttribute('value')).toBe('100');
    await screenshot(page, 'import-report');
    expect(await axeViolations(page)).toEqual([]);

    // The conversations it brought in are links to them.
    await page.getByRole('link', { name: 'Deploy plan', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/sessions/cmp-root');
    await page.getByText('How do we deploy the billing service?').first().waitFor();
  });

  it('shows the upload progress while a slow connection sends the file', async () => {
    const cdp = await page.context().newCDPSession(page);
    await page.goto(`${stack.webUrl}/admin/import`);
    await cdp.send('Network.enable');
    // ~64 KB/s up: the 180 KB fixture takes a few seconds.
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: 10 * 1024 * 1024,
      uploadThroughput: 64 * 1024,
    });
    try {
      await page.getByLabel('Hermes state.db', { exact: true }).setInputFiles(join(fixtures, 'state.db'));
      await page.getByRole('button', { name: 'Upload and import' }).click();
      const bar = page.getByTestId('upload-progress');
      await bar.waitFor();
      expect(await bar.textContent()).toMatch(/^Uploading state\.db\d+ % · [\d.]+ (KB|B) of [\d.]+ KB$/);
      expect(await page.getByRole('button', { name: 'Uploading…' }).isDisabled()).toBe(true);
      await screenshot(page, 'import-uploading');
      await page.waitForURL((url) => url.searchParams.has('run'), { timeout: 30_000 });
    } finally {
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await cdp.detach();
    }
    await page.getByTestId('import-state').filter({ hasText: 'Finished' }).waitFor({ timeout: 30_000 });
  });

  it('importing the same file again creates nothing, and the run is listed', async () => {
    await uploadAndWait(join(fixtures, 'state.db'), 'gamma');
    expect(await page.getByTestId('import-sessions-created').textContent()).toBe('0');
    const history = page.getByRole('region', { name: 'Recent imports' });
    // The header row and three runs: the first import, the slow one, this one.
    expect(await history.getByRole('row').count()).toBe(4);
  });

  it('a file that is not SQLite is refused with the reason, nothing imported', async () => {
    await page.goto(`${stack.webUrl}/admin/import`);
    await page.getByLabel('Hermes state.db', { exact: true }).setInputFiles(join(fixtures, 'notes.db'));
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await page.getByTestId('import-upload-error').waitFor();
    expect(await page.getByTestId('import-upload-error').textContent()).toBe('not a SQLite database');
    expect(new URL(page.url()).searchParams.has('run')).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('"Replace" never runs unseen: a dry run previews what it would replace, and only a confirmation imports', async () => {
    await page.goto(`${stack.webUrl}/admin/import`);
    const runsBefore = await page.getByRole('region', { name: 'Recent imports' }).getByRole('row').count();
    await page.getByLabel('Hermes state.db', { exact: true }).setInputFiles(join(fixtures, 'state.db'));
    await page.getByLabel('Profile for sessions without one').fill('gamma');
    await page.getByLabel('When a session id exists here').selectOption('replace');
    await page.getByRole('button', { name: 'Upload and import' }).click();
    // Before: the import ran at once. Now the page stays, with the dry run's counts and a choice.
    const summary = page.getByTestId('replace-summary');
    await summary.waitFor({ timeout: 30_000 });
    expect(await summary.textContent()).toMatch(
      /^Importing state\.db would replace \d+ existing sessions?, create \d+ sessions? and update \d+ sessions?\./,
    );
    expect(new URL(page.url()).searchParams.has('run')).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    // Cancel writes nothing and brings the form back.
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('button', { name: 'Upload and import' }).waitFor();
    expect(await page.getByRole('button', { name: 'Upload and import' }).isEnabled()).toBe(true);
    // Confirming imports for real (the preview's dry run is listed as one).
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await summary.waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: /^(Replace \d+ sessions? and import|Import)$/ }).click();
    await page.waitForURL((url) => url.searchParams.has('run'), { timeout: 30_000 });
    await page.getByTestId('import-state').filter({ hasText: 'Finished' }).waitFor({ timeout: 30_000 });
    const runs = await page.getByRole('region', { name: 'Recent imports' }).getByRole('row').count();
    expect(runs).toBe(runsBefore + 3);
  });

  it('ran every page under the dashboard CSP without a violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});
