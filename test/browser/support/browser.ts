import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (`npx playwright install` cannot work here).
 * playwright-core needs an absolute executable path, so resolve it the way a shell would.
 */
export function chromiumExecutable(): string {
  let path = '';
  try {
    path = execFileSync('/bin/sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    // not installed
  }
  if (!path.startsWith('/')) {
    throw new Error('Chromium is not installed: `apt-get install -y chromium` (Debian), then rerun the browser tests.');
  }
  return path;
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  /**
   * Every Content-Security-Policy violation any page of this browser reported (the dashboard and
   * Swagger UI run under a CSP; a violation means something was blocked — or should have a nonce).
   */
  cspViolations: string[];
  close(): Promise<void>;
}

/** A headless browser with a fresh, throw-away profile (no state leaks between runs). */
export async function launchBrowser(options: { timezoneId?: string } = {}): Promise<TestBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'statehouse-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumExecutable(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1360, height: 900 },
    // A fixed zone (not the machine's): times and day separators are the viewer's, and tests say whose.
    timezoneId: options.timezoneId ?? 'UTC',
  });
  const cspViolations: string[] = [];
  await context.exposeBinding('__reportCspViolation', ({ page }, text: string) => {
    cspViolations.push(`${page.url()}: ${text}`);
  });
  // Installed before any page script runs, so a violation at load time is seen too.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation;
      report(
        `${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`,
      );
    });
  });
  const watchConsole = (page: Page) =>
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
    });
  context.pages().forEach(watchConsole);
  context.on('page', watchConsole);
  return {
    context,
    cspViolations,
    async close() {
      await context.close().catch(() => undefined);
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
