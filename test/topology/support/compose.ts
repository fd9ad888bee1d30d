import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, YAML11_SCHEMA } from 'js-yaml';
import { REPO_ROOT } from '../../browser/support/stack.js';

/**
 * docker-compose.yml, read the way compose reads it: the topology tests start their processes
 * with exactly the commands and variables of its `api` and `web` services, so the two cannot drift.
 */
export const COMPOSE_FILE = join(REPO_ROOT, 'docker-compose.yml');

export interface ComposeService {
  command: string[];
  environment: Record<string, string>;
}

export interface ComposeProject {
  services: Record<string, ComposeService & Record<string, unknown>>;
}

/** `${NAME:-default}` and `${NAME}` as compose interpolates them from the shell environment (unset here). */
export function interpolate(value: string, env: Record<string, string | undefined> = {}): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
    const set = env[name];
    return set !== undefined && set !== '' ? set : (fallback ?? '');
  });
}

/** The compose file's services, with every string interpolated and environments as maps of strings. */
export function readCompose(text = readFileSync(COMPOSE_FILE, 'utf8')): ComposeProject {
  // YAML 1.1, as compose reads it (merge keys: `<<: *api`).
  const raw = load(text, { schema: YAML11_SCHEMA }) as { services: Record<string, Record<string, unknown>> };
  const services: ComposeProject['services'] = {};
  for (const [name, service] of Object.entries(raw.services)) {
    const environment: Record<string, string> = {};
    const env = service.environment;
    if (Array.isArray(env)) {
      for (const entry of env as string[]) {
        const [key, ...rest] = String(entry).split('=');
        environment[key] = interpolate(rest.join('='));
      }
    } else if (env && typeof env === 'object') {
      for (const [key, value] of Object.entries(env as Record<string, unknown>))
        environment[key] = interpolate(String(value));
    }
    const command = Array.isArray(service.command)
      ? (service.command as unknown[]).map((part) => interpolate(String(part)))
      : typeof service.command === 'string'
        ? service.command.split(/\s+/).map((part) => interpolate(part))
        : [];
    services[name] = { ...service, command, environment };
  }
  return { services };
}

/**
 * A compose service's command and environment for a local process: the variables the test must
 * change (database, ports, addresses) are replaced — and only variables the service already
 * sets may be replaced, so a renamed variable in docker-compose.yml fails the test rather than
 * being silently shadowed.
 */
export function localService(
  service: ComposeService,
  overrides: Record<string, string>,
  extra: Record<string, string> = {},
): { env: Record<string, string>; args: string[] } {
  for (const key of Object.keys(overrides)) {
    if (!(key in service.environment)) {
      throw new Error(`docker-compose.yml no longer sets ${key} for this service; the topology tests rely on it`);
    }
  }
  if (service.command[0] !== 'node') throw new Error(`expected a node command, got ${service.command.join(' ')}`);
  return { env: { ...service.environment, ...overrides, ...extra }, args: service.command.slice(1) };
}

/** Replaces the value after a flag in a command (`-p 3001` → `-p <port>`), failing if the flag is gone. */
export function withFlag(args: string[], flag: string, value: string): string[] {
  const index = args.indexOf(flag);
  if (index < 0 || index === args.length - 1) throw new Error(`the compose command has no ${flag} VALUE`);
  const copy = [...args];
  copy[index + 1] = value;
  return copy;
}
