import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { UlidGenerator } from './ids.js';

describe('UlidGenerator', () => {
  it('mints sortable ids, strictly increasing within one millisecond', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 29));
    const ids = new UlidGenerator(clock);
    const minted = Array.from({ length: 1000 }, () => ids.next());
    clock.advance(1);
    minted.push(ids.next());
    expect([...minted].sort()).toEqual(minted);
    expect(new Set(minted).size).toBe(minted.length);
    expect(minted[0]).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
