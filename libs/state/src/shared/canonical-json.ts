/**
 * Canonical JSON: sorted keys, no whitespace, `undefined` members left out. The form the receipt
 * hash chain is computed over, and what request fingerprints (idempotency, deliveries,
 * delegations) hash, so the same value always gives the same text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
    .join(',')}}`;
}
