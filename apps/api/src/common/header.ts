import { ValidationError } from '@statehouse/state';

interface HeaderSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } };
}

/** A request header read through its contract schema; a value it refuses is a 400, never a guess. */
export function parseHeader<T>(schema: HeaderSchema<T>, name: string, value: string | undefined): T | undefined {
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? 'invalid value';
    throw new ValidationError(`${name}: ${message}`, [{ path: name, message }]);
  }
  return parsed.data;
}
