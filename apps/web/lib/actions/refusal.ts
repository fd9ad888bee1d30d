import 'server-only';
import type { Problem } from '@statehouse/client';
import { ApiProblemError, ApiUnreachableError } from '@/lib/api';

/**
 * What a failed API call means for a form: the API's refusal (its problem document), or no problem
 * when the API could not be reached (`message` says why). Anything else — the redirect to /login
 * after a 401, a bug — is rethrown.
 */
export function refusalOf(error: unknown): { problem: Problem; message: string } | { problem: null; message: string } {
  if (error instanceof ApiProblemError) return { problem: error.problem, message: error.problem.detail };
  if (error instanceof ApiUnreachableError) return { problem: null, message: error.message };
  throw error;
}
