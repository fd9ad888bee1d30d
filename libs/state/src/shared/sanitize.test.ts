import { describe, expect, it } from 'vitest';
import { sanitizeTitle, TITLE_MAX, titleMayReplace } from './sanitize.js';

describe('[session.titles] sanitizeTitle', () => {
  it('strips control, zero-width and bidi characters and collapses whitespace', () => {
    expect(sanitizeTitle('  Hello\u200B\u202E   wor\u0007ld\n\tagain ')).toBe('Hello world again');
  });
  it('turns empty results into null', () => {
    expect(sanitizeTitle(' \u200B\u0000 ')).toBeNull();
    expect(sanitizeTitle(undefined)).toBeNull();
  });
  it('cuts at 100 code points without splitting a surrogate pair', () => {
    const title = sanitizeTitle('😀'.repeat(150))!;
    expect(Array.from(title)).toHaveLength(TITLE_MAX);
    expect(title.endsWith('…')).toBe(true);
    expect(() => sanitizeTitle('😀'.repeat(150), 'user')).toThrow(/at most 100/);
    expect(sanitizeTitle('😀'.repeat(100), 'user')).toBe('😀'.repeat(100));
  });
});

describe('[session.titles] titleMayReplace', () => {
  it('ranks derived < llm < user', () => {
    expect(titleMayReplace(null, 'derived')).toBe(true);
    expect(titleMayReplace('user', 'llm')).toBe(false);
    expect(titleMayReplace('llm', 'derived')).toBe(false);
    expect(titleMayReplace('derived', 'llm')).toBe(true);
    expect(titleMayReplace('user', 'user')).toBe(true);
  });
});
