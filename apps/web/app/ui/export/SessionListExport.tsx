import type { BoundedCount } from '@statehouse/contracts';
import { hrefWith } from '@/lib/paths';
import type { SessionListRaw } from '@/lib/session-list-state';
import { ExportButton } from './ExportButton';

/** Export every conversation the list's filters match (not one page), in its order. */
export function SessionListExport({ raw, total }: { raw: SessionListRaw; total: BoundedCount }) {
  const { cursor: _cursor, limit: _limit, view: _view, ...filters } = raw;
  const expected = total.exact ? total.count : null;
  return (
    <div className="export-bar" data-testid="list-export">
      <ExportButton
        href={hrefWith('/exports/sessions', { ...filters, format: 'jsonl' })}
        label="Export JSONL"
        unit="rows"
        expected={expected}
      />
      <ExportButton
        href={hrefWith('/exports/sessions', { ...filters, format: 'markdown' })}
        label="Export Markdown"
        unit="rows"
        expected={expected}
        headerLines={2}
      />
    </div>
  );
}
