import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const proxiesOf = (value: string | undefined) => loadConfig({ STATEHOUSE_TRUSTED_PROXIES: value }).trustedProxies;

describe('configuration of trusted proxies (docs/operations.md)', () => {
  it('trusts loopback by default (the dashboard runs there), nobody when empty, and the list given', () => {
    expect(loadConfig({}).trustedProxies).toEqual(['loopback']);
    expect(proxiesOf('')).toEqual([]);
    expect(proxiesOf('none')).toEqual([]);
    expect(proxiesOf(' loopback, 10.0.3.7 ,fd00::/8,uniquelocal')).toEqual([
      'loopback',
      '10.0.3.7',
      'fd00::/8',
      'uniquelocal',
    ]);
  });

  it('stops start-up on an entry that is not an address, a CIDR or a known name', () => {
    for (const value of ['dashboard', '10.0.0.0/33', '10.0.0.1/8/2', '300.1.1.1', '*']) {
      expect(() => proxiesOf(value), value).toThrow(/STATEHOUSE_TRUSTED_PROXIES: ".*" is not an address/);
    }
  });
});

describe('configuration of imports (docs/migrating-from-hermes.md)', () => {
  it('accepts uploads of up to 4 GiB by default, and the limit STATEHOUSE_IMPORT_MAX_BYTES gives', () => {
    expect(loadConfig({}).importMaxBytes).toBe(4 * 1024 ** 3);
    expect(loadConfig({ STATEHOUSE_IMPORT_MAX_BYTES: '1048576' }).importMaxBytes).toBe(1_048_576);
  });

  it('stops start-up on a limit that is not a whole number of bytes (it used to fall back to 4 GiB silently)', () => {
    for (const value of ['4G', '-1', '0', '1.5', 'lots']) {
      expect(() => loadConfig({ STATEHOUSE_IMPORT_MAX_BYTES: value })).toThrow(/STATEHOUSE_IMPORT_MAX_BYTES/);
    }
  });
});

describe('configuration by environment, one schema (README, Configuration)', () => {
  const FLAGS = {
    STATEHOUSE_TEST_HOOKS: 'testHooks',
    STATEHOUSE_SECURE_COOKIES: 'secureCookies',
    STATEHOUSE_RUN_JOBS: 'runJobs',
    STATEHOUSE_PG_PREPARED_STATEMENTS: 'pgPreparedStatements',
    STATEHOUSE_APPEND_WRITER: 'appendWriter',
    STATEHOUSE_SEED_DEMO: 'seedDemo',
  } as const;

  it('has a default for every setting; unset and empty mean the same', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      testHooks: false,
      secureCookies: false,
      runJobs: true,
      pgPreparedStatements: true,
      appendWriter: true,
      seedDemo: true,
      seedDemoExplicit: false,
      plugins: [],
      jobTickSeconds: undefined,
      importBatchMs: undefined,
      backupKeep: 7,
      searchIndexLagMs: 100,
    });
    expect(loadConfig({ STATEHOUSE_API_PORT: '', STATEHOUSE_RUN_JOBS: '', STATEHOUSE_HOST: '' })).toEqual(defaults);
    // A new PostgreSQL store is not seeded unless asked.
    expect(loadConfig({ STATEHOUSE_DATABASE_URL: 'postgres://statehouse@db:5432/statehouse' }).seedDemo).toBe(false);
  });

  it('reads every switch one way: true/false or 1/0, in any case', () => {
    for (const [name, key] of Object.entries(FLAGS)) {
      for (const [value, expected] of [
        ['true', true],
        ['1', true],
        ['TRUE', true],
        ['false', false],
        ['0', false],
        [' False ', false],
      ] as const) {
        expect(loadConfig({ [name]: value })[key], `${name}=${value}`).toBe(expected);
      }
    }
    expect(loadConfig({ STATEHOUSE_SEED_DEMO: '1' }).seedDemoExplicit).toBe(true);
  });

  it('stops start-up on a switch that is neither, naming it (yes/on used to read as false, or as true)', () => {
    for (const name of Object.keys(FLAGS)) {
      for (const value of ['yes', 'on', 'off', '2', ' ']) {
        expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(
          new RegExp(`${name}: must be true, false, 1 or 0`),
        );
      }
    }
  });

  it('takes a port from 1 to 65535 and refuses anything else, naming STATEHOUSE_API_PORT', () => {
    expect(loadConfig({ STATEHOUSE_API_PORT: '8080' }).port).toBe(8080);
    expect(loadConfig({ STATEHOUSE_API_PORT: ' 65535 ' }).port).toBe(65535);
    for (const value of ['0', '65536', '-1', '80.5', 'http', '0x50', '1e3', ' ']) {
      expect(() => loadConfig({ STATEHOUSE_API_PORT: value }), value).toThrow(
        /STATEHOUSE_API_PORT: must be a port number from 1 to 65535/,
      );
    }
  });

  it('refuses whole-number and duration settings that cannot be meant, naming each', () => {
    for (const name of [
      'STATEHOUSE_BACKUP_KEEP',
      'STATEHOUSE_READ_DEADLINE_MS',
      'STATEHOUSE_READ_WORKERS',
      'STATEHOUSE_GROUP_COMMIT_MAX_REQUESTS',
      'STATEHOUSE_IMPORT_BATCH_MS',
    ]) {
      for (const value of ['0', '2.5', 'ten', '-3']) {
        expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(new RegExp(`${name}: must be`));
      }
    }
    expect(() => loadConfig({ STATEHOUSE_SEARCH_INDEX_LAG_MS: '-1' })).toThrow(/STATEHOUSE_SEARCH_INDEX_LAG_MS/);
    expect(loadConfig({ STATEHOUSE_SEARCH_INDEX_LAG_MS: '0' }).searchIndexLagMs).toBe(0);
    for (const name of [
      'STATEHOUSE_RETENTION_INTERVAL_SECONDS',
      'STATEHOUSE_IDEMPOTENCY_PURGE_INTERVAL_SECONDS',
      'STATEHOUSE_MAINTENANCE_INTERVAL_SECONDS',
      'STATEHOUSE_BACKUP_INTERVAL_SECONDS',
      'STATEHOUSE_JOB_TICK_SECONDS',
    ]) {
      expect(() => loadConfig({ [name]: '1h' }), name).toThrow(new RegExp(`${name}: must be a number of seconds`));
    }
    expect(() => loadConfig({ STATEHOUSE_JOB_TICK_SECONDS: '0.01' })).toThrow(/STATEHOUSE_JOB_TICK_SECONDS/);
    expect(loadConfig({ STATEHOUSE_JOB_TICK_SECONDS: '0.2' }).jobTickSeconds).toBe(0.2);
  });

  it('refuses a PostgreSQL URL that does not parse', () => {
    expect(() => loadConfig({ STATEHOUSE_DATABASE_URL: 'postgres://statehouse@db:99999/statehouse' })).toThrow(
      /STATEHOUSE_DATABASE_URL: is not a valid postgres:\/\/ URL/,
    );
    expect(loadConfig({ STATEHOUSE_DATABASE_URL: 'file:/data/statehouse.db' }).databaseUrl).toBe(
      'file:/data/statehouse.db',
    );
  });

  it('names every bad variable at once, and ignores variables it does not know', () => {
    let message = '';
    try {
      loadConfig({ STATEHOUSE_API_PORT: '99999', STATEHOUSE_RUN_JOBS: 'nope', UNRELATED: 'x' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^invalid configuration:/);
    expect(message).toContain('STATEHOUSE_API_PORT: must be a port number from 1 to 65535, not "99999"');
    expect(message).toContain('STATEHOUSE_RUN_JOBS: must be true, false, 1 or 0, not "nope"');
    expect(message).not.toContain('UNRELATED');
  });
});
