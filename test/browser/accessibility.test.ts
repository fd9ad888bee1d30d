import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityProblems } from './support/axe.js';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { apiClient, SCREENSHOT_DIR, signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

let stack: Stack;
let browser: TestBrowser;
let page: Page;
let api: ReturnType<typeof apiClient>;

const PAGES = [
  '/sessions',
  '/sessions?includeChildren=true&archived=include',
  '/sessions/demo-support-02-c2',
  '/sessions/demo-support-02-c2?view=conversation',
  '/sessions/demo-support-01?includeHidden=true',
  '/sessions/demo-default-01',
  '/search?q=deploy',
  '/routes',
  '/profiles',
  '/profiles/support',
  '/receipts',
  '/receipts/reclaim',
  '/delete?ids=demo-default-01',
  '/sessions/no-such-session',
];

describe('every page passes axe', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    stack = await startStack();
    api = apiClient(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await signIn(page, stack);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });
  it.each(PAGES)('%s', async (path) => {
    await page.goto(`${stack.webUrl}${path}`);
    await page.waitForLoadState('networkidle');
    const problems = await accessibilityProblems(page);
    console.log(path, problems.length, '\n' + problems.slice(0, 40).join('\n'));
    expect(problems).toEqual([]);
  });
});
