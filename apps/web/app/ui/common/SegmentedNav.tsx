import Link from 'next/link';
import type { ReactNode } from 'react';

export interface SegmentedOption {
  href: string;
  label: ReactNode;
  current: boolean;
}

/** Two or more views of the same thing as links; the current one is marked for assistive technology. */
export function SegmentedNav({ label, options }: { label: string; options: SegmentedOption[] }) {
  return (
    <nav className="segmented" aria-label={label}>
      {options.map((option) => (
        <Link
          key={option.href}
          className="segmented__option"
          href={option.href}
          aria-current={option.current ? 'true' : undefined}
        >
          {option.label}
        </Link>
      ))}
    </nav>
  );
}
