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

/** `STATEHOUSE_TRUSTED_PROXIES`: comma-separated; unset → loopback (where the dashboard runs). */
export function parseTrustedProxies(value: string | undefined): string[] {
  if (value === undefined) return ['loopback'];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && entry !== 'none');
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
