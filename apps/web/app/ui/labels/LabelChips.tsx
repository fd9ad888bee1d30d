import type { SessionLabel } from '@statehouse/contracts';
import { cx } from '@/app/ui/common';
import './labels.css';

/** A session's labels as chips; with `hrefOf`, each links to the list filtered by it. */
export function LabelChips({ labels, hrefOf }: { labels: SessionLabel[]; hrefOf?: (name: string) => string }) {
  if (labels.length === 0) return null;
  return (
    <ul className="label-chips" aria-label="Labels">
      {labels.map((label) => (
        <li key={label.name}>
          {hrefOf ? (
            <a className={cx('label-chip', `label-chip--${label.colour}`)} href={hrefOf(label.name)}>
              {label.name}
            </a>
          ) : (
            <span className={cx('label-chip', `label-chip--${label.colour}`)}>{label.name}</span>
          )}
        </li>
      ))}
    </ul>
  );
}
