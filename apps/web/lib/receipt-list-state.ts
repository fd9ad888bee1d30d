import { type ReceiptListQuery, ReceiptListQuerySchema, type ReceiptPage } from '@statehouse/contracts';
import { parseQueryState, type QueryState } from './params';
import { firstParam, hrefWith, type RawSearchParams } from './paths';

/**
 * The receipts page's URL: newest first by default (`before` pages downwards), or the replay in
 * sequence order (`order=oldest`, `after` cursor) — an `after` alone also asks for the replay.
 */
export const RECEIPT_LIST_KEYS = ['order', 'after', 'before', 'intent', 'origin', 'profile', 'limit'] as const;
export type ReceiptListKey = (typeof RECEIPT_LIST_KEYS)[number];
export type ReceiptListRaw = Partial<Record<ReceiptListKey, string>>;
export type ReceiptListState = QueryState<ReceiptListKey, ReceiptListQuery>;

export const RECEIPT_PAGE_SIZE = 25;

export function parseReceiptListState(searchParams: RawSearchParams): ReceiptListState {
  const replay = firstParam(searchParams.after) !== undefined;
  return parseQueryState(searchParams, RECEIPT_LIST_KEYS, ReceiptListQuerySchema, {
    defaults: { limit: String(RECEIPT_PAGE_SIZE), order: replay ? 'oldest' : 'newest' },
    labels: {
      after: 'After sequence',
      before: 'Before sequence',
      limit: 'Page size',
      intent: 'Intent',
      origin: 'Origin',
    },
  });
}

export const receiptListHref = (raw: ReceiptListRaw, changes: Partial<Record<ReceiptListKey, string | null>> = {}) =>
  hrefWith('/receipts', { ...raw, ...changes });

export const receiptHref = (operationId: string) => `/receipts/${encodeURIComponent(operationId)}`;

/** The same filters in the other order, from its start (newest: the latest page; oldest: the floor). */
export function receiptOrderHref(raw: ReceiptListRaw, order: 'newest' | 'oldest'): string {
  return receiptListHref(raw, { order: order === 'newest' ? null : 'oldest', after: null, before: null });
}

export interface ReceiptPager {
  first: string | null;
  next: string | null;
  last: string | null;
  firstLabel: string;
  nextLabel: string;
  lastLabel: string;
  status: string;
}

/** Links of a page: newest first pages down by `before`; the replay pages up by `after`. */
export function receiptPager(raw: ReceiptListRaw, query: ReceiptListQuery, page: ReceiptPage): ReceiptPager {
  if (query.order === 'newest') {
    return {
      first: query.before === undefined ? null : receiptListHref(raw, { before: null }),
      next: page.nextCursor ? receiptListHref(raw, { before: page.nextCursor }) : null,
      last: null,
      firstLabel: 'Newest',
      nextLabel: 'Older →',
      lastLabel: '',
      status: `newest first · floor #${page.floor} · high-water #${page.highWater}`,
    };
  }
  const latestAfter = Math.max(page.floor, page.highWater - query.limit);
  return {
    first:
      query.after <= page.floor ? null : receiptListHref(raw, { after: page.floor > 0 ? String(page.floor) : '0' }),
    next: page.nextCursor ? receiptListHref(raw, { after: page.nextCursor }) : null,
    last: !page.nextCursor && query.after >= latestAfter ? null : receiptListHref(raw, { after: String(latestAfter) }),
    firstLabel: 'From the start',
    nextLabel: 'Next page →',
    lastLabel: 'Latest',
    status: `after #${query.after} · floor #${page.floor} · high-water #${page.highWater}`,
  };
}
