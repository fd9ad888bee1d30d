import type { DeletionReceipt, ReceiptRef } from '@statehouse/contracts';
import type { Dialect } from '../db/database.js';
import type { Tx } from '../db/unit-of-work.js';
import { DeletionRollupRepository } from '../repositories/deletion-rollup.repository.js';
import { ReceiptRepository } from '../repositories/receipt.repository.js';
import { StoreMetaRepository } from '../repositories/store-meta.repository.js';
import { toIso } from '../shared/clock.js';
import { GENESIS_HASH, receiptHash } from '../shared/receipt-hash.js';

export const META_FLOOR = 'receipt_floor';
export const META_ANCHOR_HASH = 'receipt_anchor_hash';

export type ReceiptDraft = Omit<DeletionReceipt, 'sequence' | 'prevHash' | 'hash' | 'createdAt'>;

/** Appends one receipt to the hash chain (and to the deletion rollups) inside the deleting transaction. */
export class ReceiptWriter {
  private readonly receipts: ReceiptRepository;
  private readonly meta = new StoreMetaRepository();
  private readonly rollups = new DeletionRollupRepository();

  constructor(dialect: Dialect) {
    this.receipts = new ReceiptRepository(dialect);
  }

  async write(tx: Tx, draft: ReceiptDraft, createdAtMs: number): Promise<ReceiptRef> {
    await this.receipts.lockChain(tx.db);
    const latest = await this.receipts.latest(tx.db);
    const prevHash = latest?.hash ?? (await this.meta.get(tx.db, META_ANCHOR_HASH)) ?? GENESIS_HASH;
    const sequence = await this.receipts.insert(tx.db, {
      operation_id: draft.operationId,
      origin: draft.origin,
      intent: draft.intent,
      reason: draft.reason,
      profile: draft.profile,
      actor_kind: draft.actor.kind,
      actor_id: draft.actor.id,
      created_at: createdAtMs,
      counts: JSON.stringify(draft.counts),
      identities: JSON.stringify(draft.identities),
      prev_hash: prevHash,
      hash: '',
    });
    await this.receipts.setHash(
      tx.db,
      sequence,
      receiptHash(prevHash, { ...draft, sequence, createdAt: toIso(createdAtMs) }),
    );
    // The deletions chart counts receipts as they commit, and keeps them when receipts are reclaimed.
    await this.rollups.record(tx.db, {
      createdAt: createdAtMs,
      profile: draft.profile,
      origin: draft.origin,
      sessions: draft.counts.sessions,
      messages: draft.counts.messages,
    });
    return { sequence, operationId: draft.operationId };
  }
}
