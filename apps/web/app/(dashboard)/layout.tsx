import type { ReactNode } from 'react';
import { Alert } from '@/app/ui/common';
import { AppHeader } from '@/app/ui/shell/AppHeader';
import { getMe, listProfiles } from '@/lib/api';
import { attempt } from '@/lib/attempt';

/** Every dashboard page: who is signed in, the profile switcher and the primary navigation. */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const [me, profiles] = await Promise.all([attempt(getMe), attempt(listProfiles)]);
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
      <AppHeader principal={me.value} profiles={profiles.ok ? profiles.value : []} />
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
