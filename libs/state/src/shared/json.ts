/** JSON columns are text in both dialects; parse defensively (a bad cell must not break a read). */
export function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

export function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export const toJsonOrNull = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/**
 * PostgreSQL text cannot hold NUL; both dialects store U+FFFD in its place so they keep exactly
 * the same text.
 */
export function textOrNull(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}
