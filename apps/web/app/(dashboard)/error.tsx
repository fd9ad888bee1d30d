'use client';

import { useEffect } from 'react';
import { Alert, Button, ButtonLink } from '@/app/ui/common';

/** Unexpected failures (not API problems, which pages render themselves): say so, offer a retry. */
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <Alert
      tone="danger"
      role="alert"
      title="Something went wrong on this page"
      actions={
        <>
          <Button size="sm" onClick={reset}>
            Try again
          </Button>
          <ButtonLink href="/sessions" size="sm" variant="ghost">
            Back to sessions
          </ButtonLink>
        </>
      }
    >
      <p>
        The dashboard could not render this page.
        {error.digest ? (
          <>
            {' '}
            Reference <code>{error.digest}</code> in the dashboard logs.
          </>
        ) : null}
      </p>
    </Alert>
  );
}
