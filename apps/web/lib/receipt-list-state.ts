import { type ReceiptListQuery, ReceiptListQuerySchema } from '@statehouse/contracts';
import { listState, type QueryState } from './params';

/** The receipts page's URL: replay cursor (`after`, a sequence), filters and page size. */
export const RECEIPT_LIST_KEYS = ['after', 'intent', 'origin', 'profile', 'limit'] as const;
export type ReceiptListKey = (typeof RECEIPT_LIST_KEYS)[number];
export type ReceiptListRaw = Partial<Record<ReceiptListKey, string>>;
export type ReceiptListState = QueryState<ReceiptListKey, ReceiptListQuery>;

export const RECEIPT_PAGE_SIZE = 25;

const receiptList = listState('/receipts', RECEIPT_LIST_KEYS, ReceiptListQuerySchema, {
  limit: String(RECEIPT_PAGE_SIZE),
});
export const parseReceiptListState = receiptList.parse;
export const receiptListHref = receiptList.href;

export const receiptHref = (operationId: string) => `/receipts/${encodeURIComponent(operationId)}`;
