import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearOfUtcMidnight } from './utc-day.js';

const MINUTE = 60_000;

describe('clearOfUtcMidnight', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('returns at once when midnight is further away than the span', async () => {
    vi.setSystemTime(new Date('2026-12-01T23:50:00.000Z'));
    let done = false;
    void clearOfUtcMidnight(5 * MINUTE).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it('waits until just after midnight when the span would cross it', async () => {
    vi.setSystemTime(new Date('2026-12-01T23:58:30.000Z'));
    let doneAt: string | undefined;
    void clearOfUtcMidnight(5 * MINUTE).then(() => {
      doneAt = new Date().toISOString();
    });
    await vi.advanceTimersByTimeAsync(90_000);
    expect(doneAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1000);
    expect(doneAt).toBe('2026-12-02T00:00:01.000Z');
  });
});
