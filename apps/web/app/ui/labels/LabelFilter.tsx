import type { Label } from '@statehouse/contracts';
import { cx } from '@/app/ui/common';
import { type SessionListRaw, sessionListHref } from '@/lib/session-list-state';
import './labels.css';

/**
 * Filter the sessions list by one of the profile's labels: plain links, so the label lives in the
 * URL with the other filters and the back button works.
 */
export function LabelFilter({ raw, labels }: { raw: SessionListRaw; labels: Label[] }) {
  if (labels.length === 0 && !raw.label) return null;
  const current = raw.label?.toLowerCase();
  return (
    <nav className="label-filter" aria-label="Filter by label">
      <span className="label-filter__title">Label:</span>
      <a
        className="label-chip"
        href={sessionListHref(raw, { label: null, cursor: null })}
        aria-current={raw.label ? undefined : 'true'}
      >
        Any
      </a>
      {labels.map((label) => (
        <a
          key={label.name}
          className={cx('label-chip', `label-chip--${label.colour}`)}
          href={sessionListHref(raw, { label: label.name, cursor: null })}
          aria-current={current === label.name.toLowerCase() ? 'true' : undefined}
        >
          {label.name}
        </a>
      ))}
    </nav>
  );
}
