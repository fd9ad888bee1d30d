import { describe, expect, it } from 'vitest';
import { loadConfig, parseTrustedProxies } from '../src/config.js';

describe('configuration of trusted proxies (docs/operations.md)', () => {
  it('trusts loopback by default (the dashboard runs there), nobody when empty, and the list given', () => {
    expect(loadConfig({}).trustedProxies).toEqual(['loopback']);
    expect(parseTrustedProxies('')).toEqual([]);
    expect(parseTrustedProxies('none')).toEqual([]);
    expect(parseTrustedProxies(' loopback, 10.0.3.7 ,fd00::/8,uniquelocal')).toEqual([
      'loopback',
      '10.0.3.7',
      'fd00::/8',
      'uniquelocal',
    ]);
  });

  it('stops start-up on an entry that is not an address, a CIDR or a known name', () => {
    for (const value of ['dashboard', '10.0.0.0/33', '10.0.0.1/8/2', '300.1.1.1', '*']) {
      expect(() => parseTrustedProxies(value)).toThrow(/STATEHOUSE_TRUSTED_PROXIES/);
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
