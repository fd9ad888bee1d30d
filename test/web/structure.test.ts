import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The dashboard's shape (apps/web/README.md): a page composes pieces from `app/ui/<feature>/` and
 * stays short, and modules import each other through `@/`, never by climbing directories.
 */
const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '../../apps/web');
const PAGE_MAX_LINES = 150;

function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === '.next') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...sources(path));
    else if (/\.(ts|tsx)$/.test(entry)) files.push(path);
  }
  return files;
}

const files = [...sources(join(WEB, 'app')), ...sources(join(WEB, 'lib'))];

describe('the dashboard’s code', () => {
  it(`keeps every page component at most ${PAGE_MAX_LINES} lines`, () => {
    const pages = files.filter((file) => /\/(page|layout|not-found|error)\.tsx$/.test(file));
    expect(pages.length).toBeGreaterThan(10);
    const long = pages
      .map((file) => [relative(WEB, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > PAGE_MAX_LINES);
    expect(long).toEqual([]);
  });

  it('imports other folders through @/, never ../', () => {
    const climbing = files.filter((file) => /from '\.\.\//.test(readFileSync(file, 'utf8')));
    expect(climbing.map((file) => relative(WEB, file))).toEqual([]);
  });

  it('reaches the API only through @statehouse/client: no fetch of its own in lib/api', () => {
    const apiModules = files.filter((file) => file.includes('/lib/api/'));
    expect(apiModules.length).toBeGreaterThan(10);
    const fetching = apiModules.filter((file) => /\bfetch\(/.test(readFileSync(file, 'utf8')));
    expect(fetching.map((file) => relative(WEB, file))).toEqual([]);
    const core = readFileSync(join(WEB, 'lib/api/client.ts'), 'utf8');
    expect(core).toContain("from '@statehouse/client'");
  });
});
