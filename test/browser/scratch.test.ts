import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, it } from 'vitest';
import { accessibilityProblems } from './support/axe.js';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { signIn } from './support/dashboard.js';
import { type Stack, startStack } from './support/stack.js';

let stack: Stack;
let browser: TestBrowser;
beforeAll(async () => {
  mkdirSync('/tmp/i11web-shots', { recursive: true });
  stack = await startStack();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});
it('looks', async () => {
  const page = await browser.context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') console.log('CONSOLE', m.text());
  });
  await signIn(page, stack, '/');
  for (const path of (process.env.PAGES ?? '/').split(',')) {
    const response = await page.goto(`${stack.webUrl}${path}`);
    await page.waitForLoadState('networkidle');
    const name = path.replace(/[^a-z0-9]+/gi, '_');
    await page.screenshot({ path: `/tmp/i11web-shots/${name}.png`, fullPage: true });
    const problems = await accessibilityProblems(page);
    console.log(
      'PAGE',
      path,
      response?.status(),
      await page.title(),
      problems.length,
      '\n' + problems.slice(0, 15).join('\n'),
    );
  }
}, 300_000);
