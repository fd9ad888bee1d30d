/** How a call is retried after `429`, `503` or a network failure (docs/clients.md, Retries). */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). Default 4. */
  attempts: number;
  /** First backoff without `Retry-After`, doubled per attempt, with full jitter. Default 100 ms. */
  baseDelayMs: number;
  /** Longest backoff without `Retry-After`. Default 5 000 ms. */
  maxDelayMs: number;
  /**
   * Longest `Retry-After` honoured: an answer asking for a longer wait is not retried (the error
   * carries `retryAfterSeconds` for the caller to decide). Default 60 000 ms.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
};

export const NO_RETRY: RetryPolicy = { ...DEFAULT_RETRY, attempts: 1 };

export function retryPolicy(option: Partial<RetryPolicy> | false | undefined, base: RetryPolicy): RetryPolicy {
  if (option === false) return NO_RETRY;
  return option ? { ...base, ...option } : base;
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Exponential backoff with full jitter: a random wait in [0, min(max, base·2^(retry−1))]. */
export function backoffMs(retry: number, policy: RetryPolicy, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(random() * ceiling);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** An `Idempotency-Key`: a random UUID (crypto.getRandomValues where randomUUID is missing, e.g. plain-http pages). */
export function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
