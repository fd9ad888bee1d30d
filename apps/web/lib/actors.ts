import 'server-only';
import { cache } from 'react';
import { listTokens, listUsers } from '@/lib/api';
import { attempt } from '@/lib/attempt';

/**
 * People's names for the principals the API records as `kind:id` (receipt actors, consumer
 * owners): usernames and token names, read from the user and token lists (administrators).
 */
export type ActorNames = ReadonlyMap<string, string>;

export const loadActorNames = cache(async (): Promise<ActorNames> => {
  const [users, tokens] = await Promise.all([attempt(listUsers), attempt(listTokens)]);
  const names = new Map<string, string>();
  for (const user of users.ok ? users.value : []) names.set(`user:${user.id}`, user.username);
  for (const token of tokens.ok ? tokens.value : []) names.set(`token:${token.id}`, `${token.name} (API token)`);
  return names;
});

/** "admin", "telegram-gateway (API token)", "the system", or the raw `kind id` when unknown (deleted). */
export function actorLabel(kind: string, id: string, names: ActorNames): string {
  if (kind === 'system') return 'the system';
  return names.get(`${kind}:${id}`) ?? `${kind} ${id}`;
}

/** The same for a `kind:id` key. */
export function principalLabel(key: string, names: ActorNames): string {
  const separator = key.indexOf(':');
  return separator < 0 ? key : actorLabel(key.slice(0, separator), key.slice(separator + 1), names);
}
