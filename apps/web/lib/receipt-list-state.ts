import { type ReceiptListQuery, ReceiptListQuerySchema } from '@statehouse/contracts';
import { parseQueryState, type QueryState } from './params';
import { hrefWith, type RawSearchParams } from './paths';

/** The receipts page's URL: replay cursor (`after`, a sequence), filters and page size. */
export const RECEIPT_LIST_KEYS = ['after', 'intent', 'origin', 'profile', 'limit'] as const;
export type ReceiptListKey = (typeof RECEIPT_LIST_KEYS)[number];
export type ReceiptListRaw = Partial<Record<ReceiptListKey, string>>;

export const RECEIPT_PAGE_SIZE = 25;

export type ReceiptListState = QueryState<ReceiptListKey, ReceiptListQuery>;

export function parseReceiptListState(searchParams: RawSearchParams): ReceiptListState {
  return parseQueryState(searchParams, RECEIPT_LIST_KEYS, ReceiptListQuerySchema, {
    limit: String(RECEIPT_PAGE_SIZE),
  });
}

/** The list URL with some keys changed; `null` removes a key. */
export function receiptListHref(raw: ReceiptListRaw, changes: Partial<Record<ReceiptListKey, string | null>> = {}) {
  return hrefWith('/receipts', { ...raw, ...changes });
}

export const receiptHref = (operationId: string) => `/receipts/${encodeURIComponent(operationId)}`;
