import type { ReceiptConsumer, VerifyResponse } from '@statehouse/contracts';
import type { Attempt } from '@/lib/attempt';
import type { ReceiptListRaw } from '@/lib/receipt-list-state';
import { ConsumersCard } from './ConsumersCard';
import { ReclaimCard } from './ReclaimCard';
import { VerifyCard } from './VerifyCard';
import './receipts.css';

interface ReceiptsAdminProps {
  raw: ReceiptListRaw;
  consumers: Attempt<ReceiptConsumer[]> | null;
  verification: Attempt<VerifyResponse> | null;
  marks: { floor: number; highWater: number } | null;
}

/** The administrators' part of the receipts page: consumers, chain verification, reclamation. */
export function ReceiptsAdmin({ raw, consumers, verification, marks }: ReceiptsAdminProps) {
  return (
    <div className="admin-grid">
      <ConsumersCard consumers={consumers} highWater={marks?.highWater ?? null} />
      <div className="admin-grid__column">
        <VerifyCard raw={raw} verification={verification} />
        <ReclaimCard floor={marks?.floor ?? null} highWater={marks?.highWater ?? null} />
      </div>
    </div>
  );
}
