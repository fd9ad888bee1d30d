'use server';

import { ReclaimRequestSchema } from '@statehouse/contracts';
import { refresh } from 'next/cache';
import { reclaimReceipts } from '@/lib/api';
import { idempotencyKeyFrom } from './outcome';
import { refusalOf } from './refusal';

export type ReclaimActionState =
  | { status: 'idle' }
  | { status: 'success'; reclaimed: number; floor: number; limitedBy: string | null; requested: number }
  | { status: 'error'; title: string; message: string };

/** Reclaims receipts through a sequence (admin). `safe` stops at the lowest acknowledged consumer cursor. */
export async function reclaimAction(_previous: ReclaimActionState, formData: FormData): Promise<ReclaimActionState> {
  const body = ReclaimRequestSchema.safeParse({
    throughSequence: Number(formData.get('throughSequence')),
    mode: formData.get('mode'),
  });
  if (!body.success) {
    return {
      status: 'error',
      title: 'Nothing was reclaimed',
      message: body.error.issues.map((issue) => issue.message).join('; '),
    };
  }
  try {
    const result = await reclaimReceipts(body.data, idempotencyKeyFrom(formData));
    refresh();
    return { status: 'success', ...result, requested: body.data.throughSequence };
  } catch (error) {
    const { problem, message } = refusalOf(error);
    return {
      status: 'error',
      title: problem ? `Nothing was reclaimed: ${problem.title}` : 'Nothing was reclaimed',
      message,
    };
  }
}
