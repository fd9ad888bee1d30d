import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

export const GENESIS_HASH = '0'.repeat(64);

/** hash = sha256(prevHash + canonical JSON of the receipt document). */
export function receiptHash(prevHash: string, document: unknown): string {
  return createHash('sha256')
    .update(prevHash + canonicalJson(document))
    .digest('hex');
}
