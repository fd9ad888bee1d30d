import type { ReactNode } from 'react';
import { cx } from './cx';

interface TableProps {
  /** Visible or screen-reader caption: every table says what it lists. */
  caption: ReactNode;
  captionHidden?: boolean;
  head: ReactNode[];
  rows: ReactNode[][];
  /** Columns whose cells hold numbers (right-aligned, tabular figures). */
  numericColumns?: number[];
  className?: string;
}

/** A compact data table; it scrolls sideways inside its own box on narrow screens. */
export function Table({ caption, captionHidden, head, rows, numericColumns = [], className }: TableProps) {
  const numeric = (index: number) => (numericColumns.includes(index) ? 'table__cell--numeric' : undefined);
  return (
    <div className={cx('table-wrap', className)}>
      <table className="table">
        <caption className={captionHidden ? 'visually-hidden' : 'table__caption'}>{caption}</caption>
        <thead>
          <tr>
            {head.map((cell, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional and fixed
              <th key={index} scope="col" className={numeric(index)}>
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, rowIndex) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are rendered once on the server
            <tr key={rowIndex}>
              {row.map((cell, index) =>
                index === 0 ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional and fixed
                  <th key={index} scope="row" className={numeric(index)}>
                    {cell}
                  </th>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional and fixed
                  <td key={index} className={numeric(index)}>
                    {cell}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface ListProps {
  label: string;
  className?: string;
  children: ReactNode;
}

/** A divided list of rows (sessions, search hits): reflows on small screens where tables cannot. */
export function List({ label, className, children }: ListProps) {
  return (
    <ul className={cx('list', className)} aria-label={label}>
      {children}
    </ul>
  );
}

export function ListItem({ className, children }: { className?: string; children: ReactNode }) {
  return <li className={cx('list__item', className)}>{children}</li>;
}

export interface DescriptionItem {
  term: ReactNode;
  detail: ReactNode;
  /** Explains the value (tooltip); e.g. what "generation" means. */
  hint?: string;
}

/** Term/value pairs (metadata panels). Empty values show an em dash rather than disappearing. */
export function DescriptionList({ items, className }: { items: DescriptionItem[]; className?: string }) {
  return (
    <dl className={cx('description-list', className)}>
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: fixed, server-rendered order
        <div className="description-list__row" key={index}>
          <dt title={item.hint}>{item.term}</dt>
          <dd>{item.detail ?? <span className="text-subtle">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}
