import type { ReactNode } from 'react';
import { cx } from './cx';

export type AlertTone = 'info' | 'success' | 'warning' | 'danger';

interface AlertProps {
  tone?: AlertTone;
  title?: ReactNode;
  /** Extra links or buttons, e.g. "Reload". */
  actions?: ReactNode;
  /**
   * `alert` interrupts a screen reader; use it only for errors shown on first render. Messages that
   * appear after an action belong inside a live region instead (see LiveRegion).
   */
  role?: 'alert' | 'status';
  className?: string;
  children?: ReactNode;
}

const ICONS: Record<AlertTone, string> = { info: 'i', success: '✓', warning: '!', danger: '!' };

export function Alert({ tone = 'info', title, actions, role, className, children }: AlertProps) {
  return (
    <div className={cx('alert', `alert--${tone}`, className)} role={role}>
      <span className="alert__icon" aria-hidden="true">
        {ICONS[tone]}
      </span>
      <div className="alert__content">
        {title ? <p className="alert__title">{title}</p> : null}
        {children ? <div className="alert__body">{children}</div> : null}
        {actions ? <div className="alert__actions">{actions}</div> : null}
      </div>
    </div>
  );
}

/** A polite live region that exists before its content does, so announcements are not missed. */
export function LiveRegion({ children, className, id }: { children?: ReactNode; className?: string; id?: string }) {
  return (
    <div id={id} className={cx('live-region', className)} aria-live="polite" aria-atomic="true">
      {children}
    </div>
  );
}
