/**
 * What every form's server action answers, and the plumbing the actions share. Not a 'use server'
 * module (those may export async functions only): the actions import from here.
 */
export type ActionOutcome =
  | { status: 'idle' }
  | { status: 'success'; message: string }
  /** `conflict`: anything truthy (a flag, or the revisions that clashed) means "changed underneath". */
  | { status: 'error'; title: string; message: string; conflict?: unknown };

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,255}$/;

/** The `Idempotency-Key` a confirmation form carries (rendered with its preview), when well-formed. */
export function idempotencyKeyFrom(formData: FormData): string | undefined {
  const key = String(formData.get('idempotencyKey') ?? '');
  return IDEMPOTENCY_KEY.test(key) ? key : undefined;
}
