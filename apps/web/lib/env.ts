import { z } from 'zod';
import { parseTrustedProxies } from './client-address';

/**
 * The dashboard's environment (README, Configuration), one schema: a value that cannot be meant
 * stops start-up (instrumentation.ts reads it once there) with the variable named and why.
 * Read per request afterwards, never inlined at build time.
 */
const setting = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const WebEnvSchema = z.object({
  STATEHOUSE_API_URL: setting.transform((value, ctx) => {
    const url = value ?? 'http://127.0.0.1:3000';
    if (URL.canParse(url) && /^https?:$/.test(new URL(url).protocol)) return url.replace(/\/+$/, '');
    ctx.addIssue({ code: 'custom', message: `must be an http:// or https:// URL, not ${JSON.stringify(value)}` });
    return z.NEVER;
  }),
  // One spelling for switches, as in the API: true/false or 1/0.
  STATEHOUSE_SECURE_COOKIES: setting.transform((value, ctx) => {
    const normalized = value?.trim().toLowerCase();
    if (normalized === undefined || normalized === 'false' || normalized === '0') return false;
    if (normalized === 'true' || normalized === '1') return true;
    ctx.addIssue({ code: 'custom', message: `must be true, false, 1 or 0, not ${JSON.stringify(value)}` });
    return z.NEVER;
  }),
  STATEHOUSE_WEB_TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseTrustedProxies(value);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: (error as Error).message.replace(/^STATEHOUSE_WEB_TRUSTED_PROXIES: /, ''),
        });
        return z.NEVER;
      }
    }),
});

export type WebConfig = z.output<typeof WebEnvSchema>;

/** Throws one error naming every variable with a bad value. */
export function loadWebConfig(env: NodeJS.ProcessEnv = process.env): WebConfig {
  const parsed = WebEnvSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`invalid dashboard configuration:\n${problems.join('\n')}`);
}

/** One variable, read now (per request: the rest were checked at start-up). */
export function webSetting<K extends keyof WebConfig>(name: K, env: NodeJS.ProcessEnv = process.env): WebConfig[K] {
  const parsed = WebEnvSchema.shape[name].safeParse(env[name]);
  if (parsed.success) return parsed.data as WebConfig[K];
  throw new Error(`invalid dashboard configuration: ${name}: ${parsed.error.issues[0]?.message}`);
}

/**
 * At start-up (instrumentation.ts): Next.js logs an error the hook throws and goes on serving, so
 * a bad value ends the process here instead, with every bad variable named.
 */
export function loadWebConfigOrExit(env: NodeJS.ProcessEnv = process.env): WebConfig {
  try {
    return loadWebConfig(env);
  } catch (error) {
    console.error(`\nThe dashboard cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
