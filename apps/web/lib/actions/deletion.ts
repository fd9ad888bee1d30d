'use server';

import { BulkDeleteRequestSchema } from '@statehouse/contracts';
import { redirect } from 'next/navigation';
import { bulkDeleteSessions, deleteSession } from '@/lib/api';
import { deletionDoneHref } from '@/lib/deletion';
import { safeNextPath } from '@/lib/paths';
import { idempotencyKeyFrom } from './outcome';
import { refusalOf } from './refusal';

export type DeleteActionState =
  | { status: 'idle' }
  | {
      status: 'error';
      title: string;
      message: string;
      /** The sessions changed after the preview: the page offers to preview again. */
      conflict?: boolean;
    };

/**
 * Deletes what the preview showed, as whole conversations (`includeCompressionChain`, docs/domain.md §3 "No
 * resurrection"). Every item carries the revision and generation the preview was rendered with, so
 * anything that changed since is refused (single: 412/409) or skipped (bulk) — never deleted unseen.
 * Success redirects to the result page (post/redirect/get: a reload does not delete twice).
 */
export async function deleteConversationsAction(
  _previous: DeleteActionState,
  formData: FormData,
): Promise<DeleteActionState> {
  const ids = formData.getAll('id').map(String);
  const revisions = formData.getAll('revision').map(Number);
  const generations = formData.getAll('generation').map(Number);
  const request = BulkDeleteRequestSchema.safeParse({
    items: ids.map((id, index) => ({ id, revision: revisions[index], generation: generations[index] })),
    includeCompressionChain: true,
  });
  const back = safeNextPath(String(formData.get('back') ?? ''), '/sessions');
  const idempotencyKey = idempotencyKeyFrom(formData);
  if (!request.success || ids.length !== revisions.length || ids.length !== generations.length) {
    return { status: 'error', title: 'Nothing was deleted', message: 'The form was incomplete. Preview again.' };
  }
  const { items } = request.data;

  let done: string;
  try {
    if (items.length === 1) {
      const [item] = items;
      const result = await deleteSession(item.id, {
        revision: item.revision,
        generation: item.generation,
        includeCompressionChain: true,
        idempotencyKey,
      });
      done = deletionDoneHref({
        receipts: result.receipt ? [result.receipt.operationId] : [],
        skipped: [],
        back,
      });
    } else {
      const result = await bulkDeleteSessions(request.data, idempotencyKey);
      const receipts = result.receipts.length > 0 ? result.receipts : result.receipt ? [result.receipt] : [];
      done = deletionDoneHref({
        receipts: receipts.map((receipt) => receipt.operationId),
        skipped: result.skipped,
        back,
      });
    }
  } catch (error) {
    return explain(error, items.length === 1 ? items[0] : null);
  }
  redirect(done);
}

function explain(error: unknown, single: { id: string; revision: number; generation: number } | null) {
  const { problem, message } = refusalOf(error);
  if (!problem) return { status: 'error' as const, title: 'Nothing was deleted', message };
  const subject = single ? `“${single.id}”` : 'A selected session';
  switch (problem.code) {
    case 'session_busy':
      return {
        status: 'error' as const,
        title: 'Refused: the session is busy',
        message: `${subject} has an agent turn running, so it cannot be deleted now (409 session_busy). Nothing was deleted. Try again when the turn has finished or its lease has expired.`,
      };
    case 'revision_conflict':
      return {
        status: 'error' as const,
        title: 'Refused: it changed after this preview',
        message: `${subject} was at revision ${single?.revision ?? '?'} when you previewed it${
          problem.currentRevision !== undefined ? ` and is now at revision ${problem.currentRevision}` : ''
        } (412). Nothing was deleted. Preview again to see what would go now.`,
        conflict: true,
      };
    case 'stale_generation':
      return {
        status: 'error' as const,
        title: 'Refused: a new agent turn began after this preview',
        message: `${subject} was at generation ${single?.generation ?? '?'}${
          problem.currentGeneration !== undefined ? `; it is now at ${problem.currentGeneration}` : ''
        } (409 stale_generation). Nothing was deleted. Preview again.`,
        conflict: true,
      };
    case 'not_found':
      return {
        status: 'error' as const,
        title: 'Already gone',
        message: `${subject} no longer exists (or is outside your profiles). Preview again.`,
        conflict: true,
      };
    default:
      return { status: 'error' as const, title: `Nothing was deleted: ${problem.title}`, message: problem.detail };
  }
}
