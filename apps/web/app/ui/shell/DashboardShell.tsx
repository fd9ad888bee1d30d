import { cookies } from 'next/headers';
import type { ReactNode } from 'react';
import { Alert } from '@/app/ui/common';
import { getMe, listProfiles } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { parseTheme, THEME_COOKIE } from '@/lib/theme';
import { AppHeader } from './AppHeader';

/**
 * Who is signed in, the profile switcher, the theme and the primary navigation around a page: the
 * dashboard's layout, and the 404 of an address no page answers (app/not-found.tsx).
 */
export async function DashboardShell({ children }: { children: ReactNode }) {
  const [me, profiles, jar] = await Promise.all([attempt(getMe), attempt(listProfiles), cookies()]);
  if (!me.ok) {
    return (
      <main id="main" tabIndex={-1} className="page">
        <Alert tone="danger" role="alert" title="The dashboard cannot load">
          <p>{me.error.message}</p>
        </Alert>
      </main>
    );
  }
  return (
    <>
      <AppHeader
        principal={me.value}
        profiles={profiles.ok ? profiles.value : []}
        theme={parseTheme(jar.get(THEME_COOKIE)?.value)}
      />
      <main id="main" tabIndex={-1} className="page">
        {profiles.ok ? null : (
          <Alert tone="warning" title="Profiles could not be loaded">
            <p>{profiles.error.message}</p>
          </Alert>
        )}
        {children}
      </main>
    </>
  );
}
