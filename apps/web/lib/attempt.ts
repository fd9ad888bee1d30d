import 'server-only';
import { unstable_rethrow } from 'next/navigation';
import { ApiProblemError, ApiUnreachableError } from '@/lib/api';

export type ApiFailure = ApiProblemError | ApiUnreachableError;
export type Attempt<T> = { ok: true; value: T } | { ok: false; error: ApiFailure };

/**
 * Runs an API call and returns expected failures as values, so a page can render an error state
 * next to everything that did load. Redirects (401 → /login) and programming errors still throw.
 */
export async function attempt<T>(call: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    unstable_rethrow(error);
    if (error instanceof ApiProblemError || error instanceof ApiUnreachableError) return { ok: false, error };
    throw error;
  }
}

/** The API answered 404: the thing is gone or not visible to this principal (pages call `notFound()`). */
export function isMissing(result: Attempt<unknown>): boolean {
  return !result.ok && result.error instanceof ApiProblemError && result.error.status === 404;
}
