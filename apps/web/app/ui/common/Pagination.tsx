import Link from 'next/link';
import type { ReactNode } from 'react';
import { buttonClass } from './Button';

interface PaginationProps {
  /** Names the navigation landmark, e.g. "Sessions pages". */
  label: string;
  firstHref?: string | null;
  previousHref?: string | null;
  nextHref?: string | null;
  lastHref?: string | null;
  firstLabel?: string;
  previousLabel?: string;
  nextLabel?: string;
  lastLabel?: string;
  /** Text between the buttons, e.g. "Messages 51–100". */
  status?: ReactNode;
}

/**
 * Keyset paging: the API gives an opaque "next" cursor and no totals, so the controls are
 * first / previous / next / last where the page can know them, never page numbers.
 */
export function Pagination({
  label,
  firstHref,
  previousHref,
  nextHref,
  lastHref,
  firstLabel = 'First page',
  previousLabel = '← Previous',
  nextLabel = 'Next page →',
  lastLabel = 'Last page',
  status,
}: PaginationProps) {
  if (!firstHref && !previousHref && !nextHref && !lastHref) return null;
  return (
    <nav className="pagination" aria-label={label}>
      <div className="pagination__group">
        {firstHref !== undefined ? <PageLink href={firstHref} label={firstLabel} /> : null}
        {previousHref !== undefined ? <PageLink href={previousHref} label={previousLabel} /> : null}
      </div>
      {status ? <p className="pagination__status">{status}</p> : null}
      <div className="pagination__group">
        {nextHref !== undefined ? <PageLink href={nextHref} label={nextLabel} rel="next" /> : null}
        {lastHref !== undefined ? <PageLink href={lastHref} label={lastLabel} /> : null}
      </div>
    </nav>
  );
}

function PageLink({ href, label, rel }: { href: string | null; label: string; rel?: string }) {
  if (!href) {
    return (
      <span className={buttonClass({ variant: 'secondary', size: 'sm' }, 'is-disabled')} aria-disabled="true">
        {label}
      </span>
    );
  }
  return (
    <Link className={buttonClass({ variant: 'secondary', size: 'sm' })} href={href} rel={rel}>
      {label}
    </Link>
  );
}
