import type { ReactNode } from 'react';
import { cx } from './cx';

/** Hidden inputs for the URL keys a GET form carries along unchanged; empty values are left out. */
export function HiddenFields({ values }: { values: Record<string, string | undefined> }) {
  return (
    <>
      {Object.entries(values).map(([name, value]) =>
        value ? <input key={name} type="hidden" name={name} value={value} /> : null,
      )}
    </>
  );
}

interface FilterFormProps {
  /** Names the search landmark, e.g. "Filter sessions". */
  label: string;
  /** The list page the form navigates to. */
  action: string;
  className?: string;
  /** URL keys kept as they are (the profile from the header's switcher, the page size). */
  keep?: Record<string, string | undefined>;
  children: ReactNode;
}

/**
 * A list's filters as a plain GET form: applying them is a navigation, so the URL holds the whole
 * list state, the back button works, and it needs no JavaScript.
 */
export function FilterForm({ label, action, className, keep = {}, children }: FilterFormProps) {
  return (
    <search aria-label={label}>
      <form className={cx('filter-form', className)} action={action} method="get">
        <HiddenFields values={keep} />
        {children}
      </form>
    </search>
  );
}
