import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { apiClient, expectAccessible, SCREENSHOT_DIR, screenshot, signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

/**
 * Labels end to end (docs/domain.md §15): created, renamed and recoloured on the profile page,
 * applied to the list's selection, shown on the rows, filtered by, deleted. Own API and dashboard
 * with the demo data; the steps run in order.
 */

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;

const url = (path: string) => `${stack.webUrl}${path}`;
interface ListedLabel {
  name: string;
  colour: string;
  sessionCount: number;
}
const labelsOfDefault = async () =>
  ((await (await api('/v1/profiles/default/labels')).json()) as { items: ListedLabel[] }).items;

describe('labels in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, stack, '/profiles/default');
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('creates a label on the profile page, then renames and recolours it', async () => {
    const create = page.getByRole('form', { name: 'Create a label' });
    await create.getByLabel('New label').fill('needs review');
    await create.getByLabel('Colour').selectOption('orange');
    await create.getByRole('button', { name: 'Create label' }).click();
    await expect.poll(() => create.locator('.action-result').textContent()).toContain('Created label “needs review”');
    await expect.poll(async () => (await labelsOfDefault()).map((label) => label.name)).toEqual(['needs review']);

    const edit = page.getByRole('form', { name: 'Edit label needs review' });
    await edit.getByLabel('Name').fill('Reviewed');
    await edit.getByLabel('Colour').selectOption('green');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await labelsOfDefault()).map(({ name, colour }) => ({ name, colour })))
      .toEqual([{ name: 'Reviewed', colour: 'green' }]);
    await expect.poll(() => page.getByRole('form', { name: 'Edit label Reviewed' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'profile-labels');
  });

  it('labels the selected rows of the list, shows the chips and filters by the label', async () => {
    await page.goto(url('/sessions?profile=default'));
    const boxes = page.locator('input.session-row__check');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    const bulk = page.getByRole('form', { name: 'Label the selected sessions' });
    await bulk.getByLabel('Label').selectOption('Reviewed');
    await bulk.getByRole('button', { name: 'Add to selected' }).click();
    await expect.poll(() => bulk.locator('.action-result').textContent()).toContain('Labelled 2 sessions “Reviewed”');
    await expect.poll(async () => (await labelsOfDefault())[0].sessionCount).toBe(2);

    await page.reload();
    await expect.poll(() => page.locator('.session-row .label-chip', { hasText: 'Reviewed' }).count()).toBe(2);
    await expectAccessible(page);
    await screenshot(page, 'sessions-labels', { dark: true });

    await page.getByRole('navigation', { name: 'Filter by label' }).getByRole('link', { name: 'Reviewed' }).click();
    await page.waitForURL((address) => address.searchParams.get('label') === 'Reviewed');
    await expect.poll(() => page.locator('.session-row').count()).toBe(2);
    const listed = (await (await api('/v1/sessions?profile=default&label=reviewed')).json()) as {
      items: { id: string }[];
    };
    expect(listed.items).toHaveLength(2);
    await expectAccessible(page);

    // The session page shows its labels, each a link to the list filtered by it.
    await page.goto(url(`/sessions/${encodeURIComponent(listed.items[0].id)}`));
    const chip = page.locator('.session-labels').getByRole('link', { name: 'Reviewed' });
    await expect.poll(() => chip.count()).toBe(1);
    expect(await chip.getAttribute('href')).toBe('/sessions?profile=default&label=Reviewed');
    await expectAccessible(page);
  });

  it('deletes the label on the profile page; the rows lose it', async () => {
    await page.goto(url('/profiles/default'));
    await page.getByRole('form', { name: 'Delete label Reviewed' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(async () => (await labelsOfDefault()).length).toBe(0);
    await page.goto(url('/sessions?profile=default'));
    expect(await page.locator('.session-row .label-chip').count()).toBe(0);
  });
});
