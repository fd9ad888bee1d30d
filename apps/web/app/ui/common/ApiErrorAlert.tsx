import type { ReactNode } from 'react';
import type { ApiFailure } from '@/lib/attempt';
import { Alert } from './Alert';

/**
 * The error state of a page section: what failed, in the API's words, with a way forward. Knows the
 * failure only by type (no runtime import of the server-only client), so it may sit in the shared
 * primitives that client components import too.
 */
export function ApiErrorAlert({ error, title, actions }: { error: ApiFailure; title?: string; actions?: ReactNode }) {
  if ('problem' in error) {
    const retry = error.retryAfterSeconds ? ` Retry in ${error.retryAfterSeconds} s.` : '';
    return (
      <Alert tone="danger" role="alert" title={title ?? error.problem.title} actions={actions}>
        <p>
          {error.problem.detail}
          {retry}
        </p>
        {error.problem.issues?.length ? (
          <ul>
            {error.problem.issues.map((issue) => (
              <li key={`${issue.path}:${issue.message}`}>
                {issue.path ? <code>{issue.path}</code> : null} {issue.message}
              </li>
            ))}
          </ul>
        ) : null}
      </Alert>
    );
  }
  return (
    <Alert tone="danger" role="alert" title={title ?? 'The API is unreachable'} actions={actions}>
      <p>{error.message}</p>
    </Alert>
  );
}
