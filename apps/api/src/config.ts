import { isIP } from 'node:net';
import { DEFAULT_DATABASE_URL, dialectOf } from '@statehouse/state';

/** Configuration by environment (API.md, Configuration). */
export interface ApiConfig {
  databaseUrl: string;
  host: string;
  port: number;
  adminPassword?: string;
  /** Seed demo data into a new embedded database (default true for SQLite). */
  seedDemo: boolean;
  plugins: string[];
  /** Secure cookies when served over HTTPS behind a proxy. */
  secureCookies: boolean;
  /** How often the retention policies are applied (0 disables the scheduler). */
  retentionIntervalSeconds: number;
  /**
   * Peers whose X-Forwarded-For / -Host / -Proto are believed (express `trust proxy` values:
   * addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`). The dashboard is one: it reports
   * the browser's address and origin. Empty: believe no one.
   */
  trustedProxies: string[];
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `STATEHOUSE_TRUSTED_PROXIES`: comma-separated; unset → loopback (where the dashboard runs);
 * empty or `none` → nobody. An entry that is not an address, a CIDR or a known name stops start-up.
 */
export function parseTrustedProxies(value: string | undefined): string[] {
  if (value === undefined) return ['loopback'];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && entry !== 'none');
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const bits = isIP(address) === 4 ? 32 : isIP(address) === 6 ? 128 : 0;
    const validPrefix =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits && rest.length === 0);
    if (!PROXY_NAMES.has(entry) && (bits === 0 || !validPrefix)) {
      throw new Error(
        `STATEHOUSE_TRUSTED_PROXIES: "${entry}" is not an address, a CIDR or one of loopback, linklocal, uniquelocal`,
      );
    }
  }
  return entries;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const databaseUrl = env.STATEHOUSE_DATABASE_URL || DEFAULT_DATABASE_URL;
  const seedFlag = env.STATEHOUSE_SEED_DEMO;
  return {
    databaseUrl,
    host: env.STATEHOUSE_HOST || '127.0.0.1',
    port: Number(env.STATEHOUSE_API_PORT || 3000),
    adminPassword: env.STATEHOUSE_ADMIN_PASSWORD || undefined,
    seedDemo: seedFlag === undefined || seedFlag === '' ? dialectOf(databaseUrl) === 'sqlite' : seedFlag === 'true',
    plugins: (env.STATEHOUSE_PLUGINS ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    secureCookies: env.STATEHOUSE_SECURE_COOKIES === 'true',
    retentionIntervalSeconds: Number(env.STATEHOUSE_RETENTION_INTERVAL_SECONDS ?? 3600),
    trustedProxies: parseTrustedProxies(env.STATEHOUSE_TRUSTED_PROXIES),
  };
}
