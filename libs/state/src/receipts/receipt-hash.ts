import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

/** Canonical JSON: sorted keys, no whitespace — the form the hash chain is computed over. */
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

/** hash = sha256(prevHash + canonical JSON of the receipt document). */
export function receiptHash(prevHash: string, document: unknown): string {
  return createHash('sha256')
    .update(prevHash + canonicalJson(document))
    .digest('hex');
}
