import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, YAML11_SCHEMA } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../browser/support/stack.js';
import { COMPOSE_FILE, interpolate, readCompose } from './support/compose.js';

/**
 * docker-compose.yml is checked by a real compose parser (Debian's docker-compose, which needs no
 * engine for `config`), and the services the topology tests start from it are the services
 * compose would run. CI installs docker-compose (.ci/run); elsewhere these checks are skipped
 * (reported as skipped) when it is missing.
 */
const composeAvailable = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;
const compose = (...args: string[]) =>
  execFileSync('docker-compose', ['--file', COMPOSE_FILE, '--profile', 'replicas', ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    // Compose interpolates from the environment: the checks read the file's own defaults.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });

describe.skipIf(!composeAvailable && !process.env.CI)('docker-compose.yml', () => {
  it('is valid for compose (config -q), with and without the replicas profile', () => {
    if (!composeAvailable) throw new Error('docker-compose is not installed (CI installs it: see .ci/run)');
    expect(compose('config', '-q')).toBe('');
    expect(
      execFileSync('docker-compose', ['--file', COMPOSE_FILE, 'config', '--services'], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .sort(),
    ).toEqual(['api', 'api-2', 'api-3', 'postgres', 'web']);
  });

  it('runs exactly the commands and variables the topology tests start their processes with', () => {
    if (!composeAvailable) throw new Error('docker-compose is not installed (CI installs it: see .ci/run)');
    const resolved = load(compose('config'), { schema: YAML11_SCHEMA }) as {
      services: Record<string, { command: string[]; environment: Record<string, string | number | boolean> }>;
    };
    const ours = readCompose().services;
    expect(Object.keys(resolved.services).sort()).toEqual(Object.keys(ours).sort());
    for (const name of ['api', 'api-2', 'api-3', 'web']) {
      const service = resolved.services[name];
      expect(service.command).toEqual(ours[name].command);
      const environment = Object.fromEntries(
        Object.entries(service.environment).map(([key, value]) => [key, String(value)]),
      );
      expect(environment).toEqual(ours[name].environment);
    }
  });

  it('sets only variables the API and the dashboard read and the README documents', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const apiConfig = readFileSync(join(REPO_ROOT, 'apps/api/src/config.ts'), 'utf8');
    // The dashboard reads its configuration in one place.
    const webConfig = readFileSync(join(REPO_ROOT, 'apps/web/lib/config.ts'), 'utf8');
    const services = readCompose().services;
    for (const name of ['api', 'api-2', 'api-3', 'web']) {
      for (const variable of Object.keys(services[name].environment)) {
        if (!variable.startsWith('STATEHOUSE_')) continue;
        expect(readme, `${variable} in README's configuration table`).toContain(`| \`${variable}\``);
        const reader = name === 'web' ? webConfig : apiConfig;
        expect(reader, `${variable} read by the ${name === 'web' ? 'dashboard' : 'API'}`).toContain(variable);
      }
    }
  });
});

describe('docker-compose.yml secrets', () => {
  it('ships no fixed admin password: unset, the API generates one on first start and prints it once', () => {
    const text = readFileSync(COMPOSE_FILE, 'utf8');
    expect(text).not.toMatch(/change-me/i);
    for (const name of ['api', 'api-2', 'api-3']) {
      // Compose's own reading with the variable unset: empty, which the API treats as "generate".
      expect(readCompose(text).services[name].environment.STATEHOUSE_ADMIN_PASSWORD, name).toBe('');
    }
    expect(text).toMatch(/STATEHOUSE_ADMIN_PASSWORD: \$\{STATEHOUSE_ADMIN_PASSWORD(:-)?\}/);
    // And the operator's value, when set, is what the API gets.
    expect(interpolate(`\${STATEHOUSE_ADMIN_PASSWORD:-}`, { STATEHOUSE_ADMIN_PASSWORD: 'chosen' })).toBe('chosen');
    const operations = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
    expect(operations).toContain('`docker-compose.yml` ships no password');
    expect(operations).toContain('`docker compose logs api`');
  });
});
