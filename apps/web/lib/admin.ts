import 'server-only';
import type { Principal } from '@statehouse/contracts';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { getMe } from '@/lib/api';
import { attempt } from '@/lib/attempt';

/**
 * Administrator pages answer a member with HTTP 404 (the navigation never shows them these pages,
 * and the API refuses their calls anyway): call this first, before anything is rendered.
 */
export async function requireAdmin(): Promise<Principal> {
  const me = await attempt(getMe);
  if (!me.ok || me.value.role !== 'admin') notFound();
  return me.value;
}

/** An administrator page's title; a member's 404 is titled "Not found", like the page they see. */
export function adminTitle(title: string): () => Promise<Metadata> {
  return async () => {
    const me = await attempt(getMe);
    return { title: me.ok && me.value.role === 'admin' ? title : 'Not found' };
  };
}
