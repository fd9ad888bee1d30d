import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, type Launched, launch, waitUntilAnswering } from '../support/process-kit.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const START = join(root, 'scripts/start.mjs');
const STAMP = join(root, 'scripts/build-stamp.mjs');
/** What a second `npm start` on an unchanged checkout may take until the dashboard answers. */
const SECOND_START_MS = 15_000;

/**
 * `npm start` builds only when the sources changed since the last build (README, "Two commands"):
 * on an unchanged checkout it starts the built API and dashboard at once. `npm test` builds first,
 * so the checkout is unchanged since that build here.
 */
describe('npm start on an unchanged checkout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-start-'));
  let start: Launched | undefined;
  afterAll(async () => {
    await start?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the build stamp matches the sources after the build', () => {
    // Fails when something the build reads is not covered, or the build wrote into the sources.
    expect(() => execFileSync(process.execPath, [STAMP, 'check'], { cwd: root })).not.toThrow();
  });

  it(`skips the build and answers on the dashboard within ${SECOND_START_MS / 1000} s`, async () => {
    const [apiPort, webPort] = [await freePort(), await freePort()];
    const began = Date.now();
    start = launch('npm start', [START], {
      port: webPort,
      cwd: root,
      env: {
        ...process.env,
        STATEHOUSE_DATABASE_URL: `file:${join(dir, 'start.db')}`,
        STATEHOUSE_API_PORT: String(apiPort),
        STATEHOUSE_WEB_PORT: String(webPort),
        STATEHOUSE_SEED_DEMO: 'false',
        STATEHOUSE_ADMIN_PASSWORD: 'fast-start-password-1',
        STATEHOUSE_REBUILD: '',
      },
    });
    await waitUntilAnswering(start, '/login', { timeoutMs: 60_000 });
    const answered = Date.now() - began;
    const output = start.log();
    expect(output).toContain('the build is up to date');
    expect(output).not.toContain('[statehouse] building');
    expect(answered).toBeLessThanOrEqual(SECOND_START_MS);
  });
});
