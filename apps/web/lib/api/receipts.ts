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
import { ApiProblemError, arrayOf, openEventStream, request } from './client';

/** `/v1/deletion-receipts` and `/v1/receipt-consumers`: the replayable receipt feed. */

export type ReceiptListParams = Partial<ReceiptListQuery>;

export function listReceipts(params: ReceiptListParams): Promise<ReceiptPage> {
  return request('GET /v1/deletion-receipts', ReceiptPageSchema, (api) =>
    api.GET('/v1/deletion-receipts', { params: { query: params } }),
  );
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
  return request('GET /v1/deletion-receipts/{operationId}', DeletionReceiptSchema, (api) =>
    api.GET('/v1/deletion-receipts/{operationId}', { params: { path: { operationId } } }),
  );
}

export function verifyReceiptChain(): Promise<VerifyResponse> {
  return request('GET /v1/deletion-receipts/verify', VerifyResponseSchema, (api) =>
    api.GET('/v1/deletion-receipts/verify'),
  );
}

export function reclaimReceipts(body: ReclaimRequest, idempotencyKey?: string): Promise<ReclaimResponse> {
  return request('POST /v1/deletion-receipts/reclaim', ReclaimResponseSchema, (api) =>
    api.POST('/v1/deletion-receipts/reclaim', { body, idempotencyKey }),
  );
}

export function listReceiptConsumers(): Promise<ReceiptConsumer[]> {
  return request('GET /v1/receipt-consumers', arrayOf(ReceiptConsumerSchema), (api) =>
    api.GET('/v1/receipt-consumers'),
  );
}

/**
 * Opens the API's receipt stream (server-sent events) with the user's cookie, for a route handler
 * to pass through; `Last-Event-ID` (an EventSource reconnecting) resumes after what it saw.
 */
export function openReceiptWatch(
  params: Partial<ReceiptWatchQuery>,
  { signal, lastEventId }: { signal: AbortSignal; lastEventId?: string | null },
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (lastEventId && /^\d{1,15}$/.test(lastEventId)) headers['last-event-id'] = lastEventId;
  return openEventStream(
    (api, init) => api.open('get', '/v1/deletion-receipts/watch', { params: { query: params }, ...init }),
    { signal, headers },
  );
}
