import type { Metadata } from 'next';
import { ButtonLink, Card, EmptyState } from '@/app/ui/common';

export const metadata: Metadata = { title: 'Not found' };

export default function NotFound() {
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
