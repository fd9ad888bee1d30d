import type { ActionOutcome } from '@/lib/actions/outcome';
import { Alert } from './Alert';
import { buttonClass } from './Button';

interface ResultAlertProps {
  state: ActionOutcome;
  /**
   * Offered when the error is a conflict (what the form was rendered from changed underneath): a
   * full load of a fresh view, e.g. "Reload" or "Preview again". A plain link, so it works without
   * JavaScript and re-reads everything.
   */
  recover?: { href: string; label: string };
}

/** What a form's action answered: nothing yet, a success line, or an error with what to do next. */
export function ResultAlert({ state, recover }: ResultAlertProps) {
  if (state.status === 'success') return <Alert tone="success" className="action-result" title={state.message} />;
  if (state.status !== 'error') return null;
  return (
    <Alert
      tone={state.conflict ? 'warning' : 'danger'}
      className="action-result"
      title={state.title}
      actions={
        state.conflict && recover ? (
          <a href={recover.href} className={buttonClass({ variant: 'secondary', size: 'sm' })}>
            {recover.label}
          </a>
        ) : null
      }
    >
      <p>{state.message}</p>
    </Alert>
  );
}
