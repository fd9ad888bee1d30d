import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, documents, linksOf, slug } from './doc-links.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('links between the Markdown documents', () => {
  it('every relative link of README.md and docs/ names a file and a heading that exist', () => {
    const files = documents(ROOT);
    expect(files.length).toBeGreaterThan(10);
    expect(brokenLinks(ROOT, files), 'broken links (file:line target)').toEqual([]);
  });

  it('the decision index lists every record once, numbered in order', () => {
    const dir = join(ROOT, 'docs', 'decisions');
    const records = readdirSync(dir)
      .filter((name) => /^\d{4}-[a-z0-9-]+\.md$/.test(name))
      .sort();
    expect(records.length).toBeGreaterThan(0);
    records.forEach((name, index) => {
      expect(name.slice(0, 4), `${name} out of sequence`).toBe(String(index + 1).padStart(4, '0'));
      const title = readFileSync(join(dir, name), 'utf8').split('\n')[0];
      expect(title, `${name}: first line is "# NNNN. Title"`).toMatch(new RegExp(`^# ${name.slice(0, 4)}\\. \\S`));
    });
    const indexed = linksOf(readFileSync(join(dir, 'README.md'), 'utf8'))
      .map((link) => link.target)
      .filter((target) => /^\d{4}-/.test(target));
    expect([...new Set(indexed)].sort()).toEqual(records);
  });

  it('finds a planted broken file, a planted broken anchor and GitHub-style anchors', () => {
    expect(slug('Where the server’s CPU goes per request, by package (V8 CPU profile, SQLite)')).toBe(
      'where-the-servers-cpu-goes-per-request-by-package-v8-cpu-profile-sqlite',
    );
    expect(slug('`usage_daily` stripes on PostgreSQL')).toBe('usage_daily-stripes-on-postgresql');
    expect([...anchorsOf('# A\n```\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1']);
    const links = linksOf('see [x](missing.md#top), `[y](in-code.md)` and [z](https://example.com)');
    expect(links).toEqual([{ target: 'missing.md#top', line: 1 }]);
    const dir = mkdtempSync(join(tmpdir(), 'doc-links-'));
    try {
      writeFileSync(join(dir, 'b.md'), '# Title\n\n## The section\n');
      writeFileSync(join(dir, 'a.md'), '[ok](b.md#the-section) [gone](missing.md) [moved](b.md#old-section)\n');
      expect(brokenLinks(dir, [join(dir, 'a.md')])).toEqual([
        'a.md:1 missing.md (no such file)',
        'a.md:1 b.md#old-section (no such heading)',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
