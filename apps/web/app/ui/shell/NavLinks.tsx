'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { isActive, navFor } from '@/lib/navigation';

/** Client only for `usePathname`: the active section is marked with aria-current. */
export function NavLinks({ role }: { role: 'admin' | 'member' }) {
  const pathname = usePathname();
  return (
    <ul className="primary-nav__list">
      {navFor(role).map((item) => (
        <li key={item.href}>
          <Link
            href={item.href}
            className="primary-nav__link"
            aria-current={isActive(item, pathname) ? 'page' : undefined}
          >
            {item.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}
