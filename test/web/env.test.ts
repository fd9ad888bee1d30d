import { describe, expect, it } from 'vitest';
import { loadWebConfig, webSetting } from '../../apps/web/lib/env.js';

/** The dashboard's environment, one schema (README, Configuration): bad values stop it, named. */
describe('the dashboard configuration', () => {
  it('has defaults, and reads the values given', () => {
    const defaults = loadWebConfig({});
    expect(defaults.STATEHOUSE_API_URL).toBe('http://127.0.0.1:3000');
    expect(defaults.STATEHOUSE_SECURE_COOKIES).toBe(false);
    expect(defaults.STATEHOUSE_WEB_TRUSTED_PROXIES('127.0.0.1', 0)).toBe(false);
    const given = loadWebConfig({
      STATEHOUSE_API_URL: 'https://api.example/',
      STATEHOUSE_SECURE_COOKIES: '1',
      STATEHOUSE_WEB_TRUSTED_PROXIES: 'loopback',
    });
    expect(given.STATEHOUSE_API_URL).toBe('https://api.example');
    expect(given.STATEHOUSE_SECURE_COOKIES).toBe(true);
    expect(given.STATEHOUSE_WEB_TRUSTED_PROXIES('127.0.0.1', 0)).toBe(true);
  });

  it('stops on a value that cannot be meant, naming every such variable', () => {
    let message = '';
    try {
      loadWebConfig({
        STATEHOUSE_API_URL: 'ftp://api.example',
        STATEHOUSE_SECURE_COOKIES: 'yes',
        STATEHOUSE_WEB_TRUSTED_PROXIES: 'the-proxy',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('STATEHOUSE_API_URL: must be an http:// or https:// URL');
    expect(message).toContain('STATEHOUSE_SECURE_COOKIES: must be true, false, 1 or 0');
    expect(message).toContain('STATEHOUSE_WEB_TRUSTED_PROXIES');
    expect(message).toContain('"the-proxy" is not an address');
    expect(() => loadWebConfig({ STATEHOUSE_API_URL: 'not a url' })).toThrow(/STATEHOUSE_API_URL/);
  });

  it('reads one variable on its own (per request), refusing a bad value the same way', () => {
    expect(webSetting('STATEHOUSE_API_URL', { STATEHOUSE_API_URL: 'http://api:3000//' })).toBe('http://api:3000');
    expect(webSetting('STATEHOUSE_SECURE_COOKIES', {})).toBe(false);
    expect(() => webSetting('STATEHOUSE_SECURE_COOKIES', { STATEHOUSE_SECURE_COOKIES: 'on' })).toThrow(
      /STATEHOUSE_SECURE_COOKIES: must be true, false, 1 or 0/,
    );
  });
});
