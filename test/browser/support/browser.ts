import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

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
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
