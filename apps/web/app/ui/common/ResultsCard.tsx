import type { ReactNode } from 'react';
import { Card } from './Card';

interface ResultsCardProps {
  /** Above the rows: what this page shows, and tools (selection, legend, the index that answered). */
  toolbar: ReactNode;
  /** Announce toolbar changes politely (search: the count changes with every query). */
  liveToolbar?: boolean;
  /** The rows (a List or Table), or the empty state. */
  children: ReactNode;
  /** The pager, when there is another page; nothing is drawn otherwise. */
  pager?: ReactNode;
}

/** One page of a keyset-paged list: toolbar, rows, pager. */
export function ResultsCard({ toolbar, liveToolbar, children, pager }: ResultsCardProps) {
  return (
    <Card className="results-card" padded>
      <div className="results-toolbar" aria-live={liveToolbar ? 'polite' : undefined}>
        {toolbar}
      </div>
      {children}
      {pager ? <div className="results-footer">{pager}</div> : null}
    </Card>
  );
}
