'use server';

import {
  EndSessionRequestSchema,
  IdSchema,
  type UpdateSessionRequest,
  UpdateSessionRequestSchema,
} from '@statehouse/contracts';
import { refresh } from 'next/cache';
import { endSession, reopenSession, updateSession } from '@/lib/api';
import { endReasonLabel } from '@/lib/wording';
import type { ActionOutcome } from './outcome';
import { refusalOf } from './refusal';

// Not exported: a 'use server' module may export async functions only.
const SESSION_INTENTS = ['rename', 'archive', 'unarchive', 'pin', 'unpin'] as const;
type SessionIntent = (typeof SESSION_INTENTS)[number];

const INCOMPLETE = {
  status: 'error',
  title: 'Nothing was changed',
  message: 'The form was incomplete. Reload the page.',
} as const;

/** The session a form acts on and the revision the page was rendered with (sent as If-Match). */
function formTarget(formData: FormData): { id: string; revision: number } | null {
  const id = IdSchema.safeParse(formData.get('sessionId'));
  const revision = Number(formData.get('revision'));
  return id.success && Number.isInteger(revision) && revision >= 0 ? { id: id.data, revision } : null;
}

export type SessionActionState =
  | { status: 'idle' }
  | { status: 'success'; message: string; revision: number }
  | {
      status: 'error';
      title: string;
      message: string;
      /** A stale revision: the page offers a reload instead of a retry. */
      conflict?: { sentRevision: number; currentRevision: number | null };
      field?: 'title';
      /** What the user typed, so a refused rename can be retried without retyping it. */
      submittedTitle?: string;
    };

function bodyFor(intent: SessionIntent, formData: FormData): UpdateSessionRequest | { error: string } {
  switch (intent) {
    case 'rename': {
      const title = String(formData.get('title') ?? '').trim();
      if (!title) return { error: 'Enter a title.' };
      // A person's title outranks derived and model-written ones (docs/domain.md §2.2, titleSource).
      return { title, titleSource: 'user' };
    }
    case 'archive':
      return { archived: true };
    case 'unarchive':
      return { archived: false };
    case 'pin':
      return { pinned: true };
    case 'unpin':
      return { pinned: false };
  }
}

const SUCCESS: Record<SessionIntent, string> = {
  rename: 'Renamed.',
  archive: 'Archived. The session is hidden from the default list.',
  unarchive: 'Unarchived.',
  pin: 'Pinned.',
  unpin: 'Unpinned.',
};

/**
 * Rename, archive, pin and their inverses. The revision the page was rendered with goes out as
 * `If-Match`, so a change made elsewhere in the meantime is reported, never overwritten.
 */
export async function updateSessionAction(
  _previous: SessionActionState,
  formData: FormData,
): Promise<SessionActionState> {
  const target = formTarget(formData);
  const intent = SESSION_INTENTS.find((candidate) => candidate === formData.get('intent'));
  if (!target || !intent) return INCOMPLETE;
  const { id, revision } = target;
  const submittedTitle = intent === 'rename' ? String(formData.get('title') ?? '') : undefined;
  const failed = (
    failure: Omit<Extract<SessionActionState, { status: 'error' }>, 'status' | 'submittedTitle'>,
  ): SessionActionState => ({ status: 'error', submittedTitle, ...failure });
  const body = bodyFor(intent, formData);
  if ('error' in body) return failed({ title: 'Nothing was changed', message: body.error, field: 'title' });
  const request = UpdateSessionRequestSchema.safeParse(body);
  if (!request.success) {
    const message = request.error.issues.map((issue) => issue.message).join('; ');
    return failed({ title: 'Nothing was changed', message, field: intent === 'rename' ? 'title' : undefined });
  }

  try {
    const updated = await updateSession(id, revision, request.data);
    refresh();
    const message = intent === 'rename' ? `Renamed to “${updated.title ?? ''}”.` : SUCCESS[intent];
    return { status: 'success', message, revision: updated.revision };
  } catch (error) {
    const { problem, message } = refusalOf(error);
    if (!problem) return failed({ title: 'Nothing was changed', message });
    switch (problem.code) {
      case 'revision_conflict': {
        const current = problem.currentRevision ?? null;
        return failed({
          title: 'This session changed since you opened it',
          message:
            current === null
              ? `You opened revision ${revision}; it has changed since. Reload to see it.`
              : `You opened revision ${revision}; it is now at revision ${current}. Reload to see it, then try again.`,
          conflict: { sentRevision: revision, currentRevision: current },
        });
      }
      case 'title_conflict':
        return failed({
          title: 'That title is already in use',
          message: `Another session in this profile is already called “${request.data.title ?? ''}”. Choose a different title.`,
          field: 'title',
        });
      case 'not_found':
        return failed({ title: 'Session not found', message: 'It was deleted or is outside your profiles.' });
      case 'validation_failed':
        return failed({ title: 'Nothing was changed', message: problem.detail, field: 'title' });
      default:
        return failed({ title: problem.title, message: problem.detail });
    }
  }
}

export type LifecycleActionState = ActionOutcome;

/**
 * End (with a reason) and reopen, with `If-Match` from the rendered revision. The API applies the
 * end-reason rules (docs/domain.md §4): the first end wins, deliberate ends cannot be reopened.
 */
export async function lifecycleAction(
  _previous: LifecycleActionState,
  formData: FormData,
): Promise<LifecycleActionState> {
  const target = formTarget(formData);
  const intent = formData.get('intent');
  if (!target || (intent !== 'end' && intent !== 'reopen')) return INCOMPLETE;
  const { id, revision } = target;
  try {
    if (intent === 'end') {
      const body = EndSessionRequestSchema.safeParse({ reason: formData.get('reason') });
      if (!body.success) return { status: 'error', title: 'Nothing was changed', message: 'Choose an end reason.' };
      const ended = await endSession(id, revision, body.data);
      refresh();
      return {
        status: 'success',
        message: `Ended (${endReasonLabel(ended.endReason ?? body.data.reason, ended.endReasonDetail).toLowerCase()}).`,
      };
    }
    await reopenSession(id, revision);
    refresh();
    return { status: 'success', message: 'Reopened.' };
  } catch (error) {
    const { problem, message } = refusalOf(error);
    if (!problem) return { status: 'error', title: 'Nothing was changed', message };
    switch (problem.code) {
      case 'revision_conflict':
        return {
          status: 'error',
          title: 'This session changed since you opened it',
          message: `You opened revision ${revision}${
            problem.currentRevision !== undefined ? `; it is now at revision ${problem.currentRevision}` : ''
          }. Reload to see the change, then try again.`,
          conflict: true,
        };
      case 'session_closed':
        return { status: 'error', title: 'This end cannot be undone here', message: problem.detail };
      case 'session_busy':
        return { status: 'error', title: 'A turn is running', message: problem.detail };
      case 'not_found':
        return { status: 'error', title: 'Session not found', message: 'It was deleted or is outside your profiles.' };
      default:
        return { status: 'error', title: problem.title, message: problem.detail };
    }
  }
}
