import { describe, expect, it } from 'vitest';
import { safeNextPath } from '../../apps/web/lib/paths.js';
import { HOSTILE_NEXT } from './redirect-corpus.js';

/**
 * The dashboard's `next`/`back` resolution (docs/security.md, "Redirects"), value by value as
 * Next.js hands it over (the query value decoded once). The browser test replays the same corpus
 * through a real sign-in.
 */
const OWN = 'http://127.0.0.1:3001';

/** Where a browser goes for `Location: <path>` on the dashboard's origin (it strips TAB/LF/CR first). */
const browserTarget = (location: string) => new URL(location.replace(/[\t\n\r]/g, ''), OWN);

describe('safe next/back paths', () => {
  for (const raw of HOSTILE_NEXT) {
    it(`keeps ${JSON.stringify(raw.slice(0, 60))} on the dashboard's own origin`, () => {
      let decoded = raw;
      try {
        decoded = decodeURIComponent(raw);
      } catch {
        // Next keeps a malformed escape as it is
      }
      for (const value of [raw, decoded]) {
        const path = safeNextPath(value);
        expect(path.startsWith('/')).toBe(true);
        expect(browserTarget(path).origin).toBe(OWN);
        // A header value can carry it: printable ASCII only.
        expect(path).toMatch(/^[\x21-\x7e]+$/);
        expect(path).not.toMatch(/^\/login(?:[/?#]|$)/);
      }
    });
  }

  it('keeps legitimate paths as they are', () => {
    expect(safeNextPath('/sessions?status=open')).toBe('/sessions?status=open');
    expect(safeNextPath('/sessions/demo-1#m-42')).toBe('/sessions/demo-1#m-42');
    expect(safeNextPath('/search?q=%E4%BC%9A%E8%AE%AE')).toBe('/search?q=%E4%BC%9A%E8%AE%AE');
    expect(safeNextPath('/delete?ids=a,b&back=%2Fsessions')).toBe('/delete?ids=a,b&back=%2Fsessions');
  });

  it('falls back for what is not a same-origin path', () => {
    for (const value of ['//evil.example', '/\t/evil.example', 'https://evil.example', 'javascript:alert(1)']) {
      expect(safeNextPath(value)).toBe('/sessions');
      expect(safeNextPath(value, '/receipts')).toBe('/receipts');
    }
  });
});
