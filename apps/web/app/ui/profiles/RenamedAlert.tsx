import type { RenameCounts } from '@statehouse/contracts';
import { Alert } from '@/app/ui/common';
import { formatNumber } from '@/lib/format';
import { RENAME_COUNT_KEYS, RENAME_COUNT_LABELS } from '@/lib/profile-results';
import './profiles.css';

/** The outcome of a rename (from the URL it redirected to): what moved, counted. */
export function RenamedAlert({ from, to, counts }: { from: string; to: string; counts: RenameCounts }) {
  return (
    <Alert tone="success" role="status" title={`Renamed “${from}” to “${to}”`}>
      <p>One transaction rewrote everything that carried the old name. Receipts keep the old name as history.</p>
      <ul className="rename-counts" aria-label="What the rename changed">
        {RENAME_COUNT_KEYS.map((key) => (
          <li key={key}>
            <strong>{formatNumber(counts[key])}</strong> {RENAME_COUNT_LABELS[key]}
          </li>
        ))}
      </ul>
    </Alert>
  );
}
