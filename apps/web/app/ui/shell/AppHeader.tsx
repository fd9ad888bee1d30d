import type { Principal, ProfileSummary } from '@statehouse/contracts';
import Link from 'next/link';
import { Suspense } from 'react';
import { Button } from '@/app/ui/common';
import { logoutAction } from '@/lib/actions/auth';
import { describeProfileSet } from '@/lib/profile-set';
import type { Theme } from '@/lib/theme';
import { BrandMark } from './BrandMark';
import { NavLinks } from './NavLinks';
import { ProfileSwitcher } from './ProfileSwitcher';
import { ThemeSwitcher } from './ThemeSwitcher';

interface AppHeaderProps {
  principal: Principal;
  profiles: ProfileSummary[];
  theme: Theme;
}

export function AppHeader({ principal, profiles, theme }: AppHeaderProps) {
  const scope = describeProfileSet(principal.profiles);
  const roleLabel = principal.role === 'admin' ? 'Administrator' : 'Member';
  return (
    <header className="app-header">
      <div className="app-header__inner">
        <Link href="/" className="brand">
          <BrandMark />
          <span>Statehouse</span>
        </Link>
        <nav className="primary-nav" aria-label="Primary">
          <NavLinks role={principal.role} />
        </nav>
        <div className="app-header__profile">
          <Suspense fallback={null}>
            <ProfileSwitcher profiles={profiles} />
          </Suspense>
        </div>
        <ThemeSwitcher initial={theme} />
        <div className="user-menu" data-testid="current-user">
          <span className="user-menu__avatar" aria-hidden="true" title={`${principal.name} · ${principal.role}`}>
            {principal.name.slice(0, 1)}
          </span>
          <Link
            href="/settings/account"
            className="user-menu__who"
            title={`Your account · ${principal.role} · ${scope}`}
          >
            <span className="user-menu__name">{principal.name}</span>{' '}
            <span className="user-menu__role">{roleLabel}</span>
            <span className="visually-hidden"> — your account ({scope})</span>
          </Link>
          <form action={logoutAction}>
            <Button type="submit" variant="ghost" size="sm">
              Log out
            </Button>
          </form>
        </div>
      </div>
    </header>
  );
}
