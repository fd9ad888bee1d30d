import { type ReceiptListQuery, ReceiptListQuerySchema } from '@statehouse/contracts';
import { firstParam, hrefWith, type RawSearchParams } from './paths';

/** The receipts page's URL: replay cursor (`after`, a sequence), filters and page size. */
export const RECEIPT_LIST_KEYS = ['after', 'intent', 'origin', 'profile', 'limit'] as const;
export type ReceiptListKey = (typeof RECEIPT_LIST_KEYS)[number];
export type ReceiptListRaw = Partial<Record<ReceiptListKey, string>>;

export const RECEIPT_PAGE_SIZE = 25;

export type ReceiptListState =
  | { ok: true; raw: ReceiptListRaw; query: ReceiptListQuery }
  | { ok: false; raw: ReceiptListRaw; issues: string[] };

export function parseReceiptListState(searchParams: RawSearchParams): ReceiptListState {
  const raw: ReceiptListRaw = {};
  for (const key of RECEIPT_LIST_KEYS) {
    const value = firstParam(searchParams[key])?.trim();
    if (value) raw[key] = value;
  }
  const parsed = ReceiptListQuerySchema.safeParse({ limit: String(RECEIPT_PAGE_SIZE), ...raw });
  if (parsed.success) return { ok: true, raw, query: parsed.data };
  return {
    ok: false,
    raw,
    issues: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`),
  };
}

/** The list URL with some keys changed; `null` removes a key. */
export function receiptListHref(raw: ReceiptListRaw, changes: Partial<Record<ReceiptListKey, string | null>> = {}) {
  return hrefWith('/receipts', { ...raw, ...changes });
}

export const receiptHref = (operationId: string) => `/receipts/${encodeURIComponent(operationId)}`;
