import { Alert } from '@/app/ui/common';

export type ActionOutcome =
  | { status: 'idle' }
  | { status: 'success'; message: string }
  /** `conflict`: anything truthy (a flag, or the revisions that clashed) offers the reload. */
  | { status: 'error'; title: string; message: string; conflict?: unknown };

/**
 * What a session action answered. A conflict (the session changed underneath) offers a full
 * reload: the whole page (metadata, transcript, revision) must be re-read.
 */
export function ActionResult({ state, reloadHref }: { state: ActionOutcome; reloadHref: string }) {
  if (state.status === 'success') return <Alert tone="success" className="action-result" title={state.message} />;
  if (state.status !== 'error') return null;
  return (
    <Alert
      tone={state.conflict ? 'warning' : 'danger'}
      className="action-result"
      title={state.title}
      actions={
        state.conflict ? (
          <a href={reloadHref} className="btn btn--secondary btn--sm">
            Reload
          </a>
        ) : null
      }
    >
      <p>{state.message}</p>
    </Alert>
  );
}
