import type { Metadata } from 'next';
import { ButtonLink, Card, EmptyState, NotFoundCard } from '@/app/ui/common';
import { DashboardShell } from '@/app/ui/shell/DashboardShell';
import { getMe } from '@/lib/api';
import { attempt } from '@/lib/attempt';

export const metadata: Metadata = { title: 'Not found' };

/**
 * An address no page answers. Signed in, it keeps the dashboard around it (navigation, profile,
 * account) so a mistyped link is one click from anywhere; signed out, a plain card.
 */
export default async function NotFound() {
  const me = await attempt(getMe);
  if (me.ok) {
    return (
      <DashboardShell>
        <NotFoundCard
          title="Page not found"
          description="There is nothing at this address."
          back={{ href: '/', label: 'Go to the overview' }}
        />
      </DashboardShell>
    );
  }
  return (
    <main id="main" tabIndex={-1} className="login-page">
      <div className="login-panel">
        <Card>
          <EmptyState
            title="Page not found"
            description="There is nothing at this address."
            action={<ButtonLink href="/sessions">Go to sessions</ButtonLink>}
          />
        </Card>
      </div>
    </main>
  );
}
