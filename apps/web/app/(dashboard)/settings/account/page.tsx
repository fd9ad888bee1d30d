import type { Metadata } from 'next';
import { PasswordForm } from '@/app/ui/account/PasswordForm';
import { SignedInSessions } from '@/app/ui/account/SignedInSessions';
import { SignOutOthersForm } from '@/app/ui/account/SignOutOthersForm';
import { ApiErrorAlert, Card, PageHeader } from '@/app/ui/common';
import { getMe, listDashboardSessions } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { describeProfileSet } from '@/lib/profile-set';

export const metadata: Metadata = { title: 'Your account' };

/** The signed-in user's own settings: password and the browsers signed in as them. */
export default async function AccountPage() {
  const [me, sessions] = await Promise.all([attempt(getMe), attempt(listDashboardSessions)]);
  if (!me.ok) return <ApiErrorAlert error={me.error} title="Your account could not be loaded" />;
  const principal = me.value;
  return (
    <>
      <PageHeader
        title="Your account"
        description={
          <>
            Signed in as <strong>{principal.name}</strong>, {principal.role === 'admin' ? 'administrator' : 'member'}{' '}
            with access to {describeProfileSet(principal.profiles)}.
          </>
        }
      />
      <Card title="Password" description="Changing it keeps this browser signed in and signs out every other one.">
        <PasswordForm username={principal.name} />
      </Card>
      <Card
        title="Signed-in sessions"
        description="Browsers signed in as you. Sign out any you do not recognise."
        actions={
          sessions.ok ? (
            <SignOutOthersForm others={sessions.value.filter((session) => !session.current).length} />
          ) : null
        }
      >
        {sessions.ok ? (
          <SignedInSessions sessions={sessions.value} />
        ) : (
          <ApiErrorAlert error={sessions.error} title="Signed-in sessions could not be loaded" />
        )}
      </Card>
    </>
  );
}
