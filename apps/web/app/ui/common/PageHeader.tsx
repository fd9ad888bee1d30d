import Link from 'next/link';
import type { ReactNode } from 'react';

export interface Crumb {
  label: ReactNode;
  /** Omitted on the last crumb: the current page. */
  href?: string;
}

/** Where a page sits: its parents as links, itself as the current page. */
export function Breadcrumbs({ items }: { items: Crumb[] }) {
  return (
    <nav aria-label="Breadcrumb">
      <ol className="breadcrumbs">
        {items.map((item, index) =>
          item.href ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: crumbs are positional
            <li key={index}>
              <Link href={item.href}>{item.label}</Link>
            </li>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: crumbs are positional
            <li key={index} aria-current="page">
              {item.label}
            </li>
          ),
        )}
      </ol>
    </nav>
  );
}

interface PageHeaderProps {
  /** The page's one `h1`. */
  title: ReactNode;
  /** `data-testid` of the `h1`, for tests that read the title. */
  titleTestId?: string;
  /** Badges next to the title (state: pinned, busy, archived…). */
  badges?: ReactNode;
  /** One sentence under the title. */
  description?: ReactNode;
  /** A row of facts under the title (ids, badges, times), instead of or after the description. */
  meta?: ReactNode;
  /** Parents of this page; the header then starts with breadcrumbs. */
  breadcrumbs?: Crumb[];
  /** Links or controls on the right (wrapping below on narrow screens). */
  actions?: ReactNode;
}

/** The top of every dashboard page: breadcrumbs, title, description or facts, and actions. */
export function PageHeader({ title, titleTestId, badges, description, meta, breadcrumbs, actions }: PageHeaderProps) {
  const heading = (
    <h1 className="page-header__title" data-testid={titleTestId}>
      {title}
    </h1>
  );
  const header = (
    <div className="page-header">
      <div>
        {badges ? (
          <div className="page-header__title-row">
            {heading}
            {badges}
          </div>
        ) : (
          heading
        )}
        {description ? <p className="page-header__description">{description}</p> : null}
        {meta ? <div className="page-header__meta">{meta}</div> : null}
      </div>
      {actions ? <div className="page-header__actions">{actions}</div> : null}
    </div>
  );
  if (!breadcrumbs) return header;
  return (
    <div>
      <Breadcrumbs items={breadcrumbs} />
      {header}
    </div>
  );
}
