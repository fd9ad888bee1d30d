import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkRules,
  parseDomainDoc,
  scanPythonTests,
  scanRepositoryTests,
  scanTypeScriptTests,
} from './domain-rules.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One line per offender, so a failure names every id at once. */
const listed = (items: { id: string; where?: string[] }[]) =>
  items.map((item) => (item.where ? `${item.id} (named at ${item.where.join(', ')})` : item.id));

describe('docs/domain.md rule ids and the tests that prove them', () => {
  const doc = parseDomainDoc(readFileSync(join(ROOT, 'docs', 'domain.md'), 'utf8'));
  const check = checkRules(doc, scanRepositoryTests(ROOT));

  it('every numbered rule paragraph carries an id', () => {
    expect(doc.rules.length).toBeGreaterThan(50);
    expect(
      check.unnamed.map((paragraph) => `§${paragraph.number} (docs/domain.md:${paragraph.line})`),
      'rule paragraphs without an id: write `N.N. [area.short-name] …`',
    ).toEqual([]);
  });

  it('no id is given to two rules', () => {
    expect(check.duplicates, 'ids given twice in docs/domain.md').toEqual([]);
  });

  it('every rule is named by a test', () => {
    expect(check.untested, 'rules no test names: put `[id]` in the title of the test that proves it').toEqual([]);
  });

  it('every id a test names is a rule of docs/domain.md', () => {
    expect(listed(check.unknown), 'tests name ids docs/domain.md does not have').toEqual([]);
  });

  it('every database rule is proven on both dialects', () => {
    expect(
      listed(check.oneDialect),
      'database rules named only by tests that do not run per dialect (inside `for (… of TEST_DIALECTS)`), or mark the rule `(no database)`',
    ).toEqual([]);
  });
});

describe('the rule-id check itself', () => {
  const planted = [
    '# Rules',
    '',
    '## 1. About',
    '',
    '_Not rules: a description._',
    '',
    '1.1. Words without an id.',
    '',
    '## 2. Rules',
    '',
    '2.1. [area.first] **First.** Text.',
    '| a table row | shares the id |',
    '2.2. [area.second] (no database) Pure.',
    '2.3. [area.first] Given twice.',
    '2.4. Forgot its id.',
    '2.5. [area.third] Stored.',
    '- 1. a list item is no rule',
  ].join('\n');

  it('reads ids, the no-database mark, duplicates and paragraphs without an id; skips exempt sections', () => {
    const doc = parseDomainDoc(planted);
    expect(doc.rules.map((rule) => [rule.number, rule.id, rule.touchesDatabase])).toEqual([
      ['2.1', 'area.first', true],
      ['2.2', 'area.second', false],
      ['2.3', 'area.first', true],
      ['2.5', 'area.third', true],
    ]);
    expect(doc.duplicates).toEqual(['area.first']);
    expect(doc.unnamed).toEqual([{ number: '2.4', line: 15 }]);
  });

  it('finds ids in titles only, knows which tests run per dialect, and ignores skipped ones', () => {
    const source = `
      import { describe, it } from 'vitest';
      it('[area.second] pure', () => { const notATitle = '[area.ghost]'; });
      it.skip('[area.skipped] never runs', () => {});
      it.todo('[area.todo] later');
      for (const { dialect, available } of TEST_DIALECTS) {
        describe.skipIf(!available)(\`[area.first] on \${dialect}\`, () => {
          it('[area.third] stored', () => {});
          if (dialect === 'postgres') it('[area.pg-only] one dialect', () => {});
          it.runIf(dialect === 'sqlite')('[area.sqlite-only] one dialect', () => {});
        });
      }`;
    const mentions = scanTypeScriptTests('x.test.ts', source);
    expect(mentions.map((mention) => [mention.id, mention.bothDialects])).toEqual([
      ['area.second', false],
      ['area.first', true],
      ['area.third', true],
      ['area.pg-only', false],
      ['area.sqlite-only', false],
    ]);
  });

  it('reads Python tests by their docstrings', () => {
    const source = [
      'def test_resolves():',
      '    """[area.second] resolves a chat."""',
      '',
      'async def test_other(client) -> None:',
      "    '''No id here.'''",
    ].join('\n');
    expect(scanPythonTests('tests/test_x.py', source)).toEqual([
      {
        id: 'area.second',
        file: 'tests/test_x.py',
        line: 1,
        title: 'test_resolves: [area.second] resolves a chat.',
        bothDialects: false,
      },
    ]);
  });

  it('fails for a rule without a test, an unknown id, and a database rule proven on one dialect', () => {
    const doc = parseDomainDoc(planted);
    const mentions = [
      ...scanTypeScriptTests(
        'a.test.ts',
        "it('[area.second] pure', () => {}); it('[area.third] one dialect', () => {});",
      ),
      ...scanTypeScriptTests('b.test.ts', "it('[area.missing] no such rule', () => {});"),
    ];
    const check = checkRules(doc, mentions);
    expect(check.untested).toEqual(['area.first']);
    expect(check.unknown).toEqual([{ id: 'area.missing', where: ['b.test.ts:1'] }]);
    expect(check.oneDialect).toEqual([{ id: 'area.third', where: ['a.test.ts:1'] }]);
    expect(check.duplicates).toEqual(['area.first']);
  });
});
