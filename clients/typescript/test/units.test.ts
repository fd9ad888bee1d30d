import { describe, expect, it } from 'vitest';
import { EventStreamParser } from '../src/index.js';
import { backoffMs, DEFAULT_RETRY, newIdempotencyKey, retryAfterMs } from '../src/retry.js';

describe('EventStreamParser', () => {
  it('parses events split across chunks at any byte, with CRLF, comments, multi-line data and retry', () => {
    const text =
      ': keepalive\r\nevent: receipt\r\nid: 7\r\ndata: {"a":\r\ndata: 1}\r\n\r\nretry: 1500\nevent: bookmark\nid: 9\ndata: {}\n\n';
    for (let split = 0; split <= text.length; split++) {
      const parser = new EventStreamParser();
      const events = [...parser.push(text.slice(0, split)), ...parser.push(text.slice(split))];
      expect(events).toEqual([
        { event: 'receipt', id: '7', data: '{"a":\n1}', retry: undefined },
        { event: 'bookmark', id: '9', data: '{}', retry: 1500 },
      ]);
    }
  });

  it('names an event without `event:` "message" and ignores blank lines between events', () => {
    expect(new EventStreamParser().push('\n\ndata: x\n\n\n')).toEqual([
      { event: 'message', id: undefined, data: 'x', retry: undefined },
    ]);
  });
});

describe('retry timing', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
    const now = Date.parse('2026-12-06T10:00:00Z');
    expect(retryAfterMs('Sun, 06 Dec 2026 10:00:05 GMT', now)).toBe(5000);
  });

  it('backs off exponentially with full jitter, capped', () => {
    expect(backoffMs(1, DEFAULT_RETRY, () => 1)).toBe(100);
    expect(backoffMs(3, DEFAULT_RETRY, () => 1)).toBe(400);
    expect(backoffMs(30, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs);
    expect(backoffMs(3, DEFAULT_RETRY, () => 0)).toBe(0);
  });

  it('makes distinct idempotency keys the API accepts (1–255 characters)', () => {
    const keys = new Set(Array.from({ length: 100 }, () => newIdempotencyKey()));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f-]{32,36}$/);
  });
});
