import {
  type DeletionReceipt,
  DeletionReceiptSchema,
  type ReceiptConsumer,
  ReceiptConsumerSchema,
  type ReceiptListQuery,
  type ReceiptPage,
  ReceiptPageSchema,
  type ReceiptWatchQuery,
  type ReclaimRequest,
  type ReclaimResponse,
  ReclaimResponseSchema,
  type VerifyResponse,
  VerifyResponseSchema,
} from '@statehouse/contracts';
import { apiBaseUrl } from '@/lib/config';
import {
  ApiProblemError,
  ApiUnreachableError,
  arrayOf,
  buildQuery,
  describeFailure,
  request,
  sessionCookieHeader,
} from './client';

/** `/v1/deletion-receipts` and `/v1/receipt-consumers`: the replayable receipt feed. */

export type ReceiptListParams = Partial<ReceiptListQuery>;

export function listReceipts(params: ReceiptListParams): Promise<ReceiptPage> {
  return request('/v1/deletion-receipts', ReceiptPageSchema, { query: { ...params } });
}

/**
 * The feed's high-water mark and floor. Asked from sequence 0, which after a reclamation is below
 * the floor (410 cursor_expired carries the floor): then asked again from there.
 */
export async function receiptMarks(): Promise<{ highWater: number; floor: number }> {
  try {
    const page = await listReceipts({ after: 0, limit: 1 });
    return { highWater: page.highWater, floor: page.floor };
  } catch (error) {
    if (!(error instanceof ApiProblemError) || error.code !== 'cursor_expired') throw error;
    const floor = Number(error.problem.floor);
    const page = await listReceipts({ after: Number.isInteger(floor) ? floor : 0, limit: 1 });
    return { highWater: page.highWater, floor: page.floor };
  }
}

export function getReceipt(operationId: string): Promise<DeletionReceipt> {
  return request(`/v1/deletion-receipts/${encodeURIComponent(operationId)}`, DeletionReceiptSchema);
}

export function verifyReceiptChain(): Promise<VerifyResponse> {
  return request('/v1/deletion-receipts/verify', VerifyResponseSchema);
}

export function reclaimReceipts(body: ReclaimRequest, idempotencyKey?: string): Promise<ReclaimResponse> {
  return request('/v1/deletion-receipts/reclaim', ReclaimResponseSchema, { method: 'POST', body, idempotencyKey });
}

export function listReceiptConsumers(): Promise<ReceiptConsumer[]> {
  return request('/v1/receipt-consumers', arrayOf(ReceiptConsumerSchema));
}

const WATCH_CONNECT_TIMEOUT_MS = 15_000;

/**
 * Opens the API's receipt stream (server-sent events) with the user's cookie and returns the raw
 * response for a route handler to pass through. Only connecting is time-limited: the stream itself
 * lives until `signal` (the browser went away) aborts it. Errors are returned as they came.
 */
export async function openReceiptWatch(
  params: Partial<ReceiptWatchQuery>,
  { signal, lastEventId }: { signal: AbortSignal; lastEventId?: string | null },
): Promise<Response> {
  const requestHeaders: Record<string, string> = { accept: 'text/event-stream' };
  const cookie = await sessionCookieHeader();
  if (cookie) requestHeaders.cookie = cookie;
  if (lastEventId && /^\d{1,15}$/.test(lastEventId)) requestHeaders['last-event-id'] = lastEventId;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const connectTimer = setTimeout(() => controller.abort(), WATCH_CONNECT_TIMEOUT_MS);
  try {
    return await fetch(`${apiBaseUrl()}/v1/deletion-receipts/watch${buildQuery({ ...params })}`, {
      headers: requestHeaders,
      cache: 'no-store',
      redirect: 'manual',
      signal: controller.signal,
    });
  } catch (error) {
    signal.removeEventListener('abort', onAbort);
    throw new ApiUnreachableError(describeFailure(error));
  } finally {
    clearTimeout(connectTimer);
  }
}
