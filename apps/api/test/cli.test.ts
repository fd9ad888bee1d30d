import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const scratch = mkdtempSync(join(tmpdir(), 'statehouse-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function run(tool: string, args: string[], env: Record<string, string> = {}) {
  const cli = join(ROOT, `apps/api/dist/cli/${tool}.js`);
  if (!existsSync(cli)) throw new Error(`the ${tool} CLI is not built: run \`npm run build\` (npm test does it first)`);
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, ...args], {
      cwd: ROOT,
      // A store that is never opened: --help and argument errors answer before touching it.
      env: { ...process.env, STATEHOUSE_DATABASE_URL: `sqlite://${join(scratch, 'unused.db')}`, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('command-line tools (npm run token | import | backup | restore)', () => {
  for (const tool of ['token', 'import', 'backup', 'restore']) {
    it(`${tool}: --help prints the usage and exits 0; an unknown option exits 2 with the reason, never a stack trace`, async () => {
      const help = await run(tool, ['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`usage: npm run ${tool} --`);
      const unknown = await run(tool, ['--frobnicate']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(`statehouse ${tool}: Unknown option '--frobnicate'`);
      expect(unknown.stderr).toContain(`usage: npm run ${tool} --`);
      expect(unknown.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('a variable with a value that cannot be meant exits 2 naming it, never a stack trace', async () => {
    const refused = await run('token', ['create', '--name', 'x', '--role', 'admin', '--profiles', '*'], {
      STATEHOUSE_READ_WORKERS: 'many',
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('statehouse token: invalid configuration:');
    expect(refused.stderr).toContain('STATEHOUSE_READ_WORKERS: must be a whole number ≥ 1, not "many"');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });
});
