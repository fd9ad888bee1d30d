import { describe, expect, it } from 'vitest';
import { planSearch, toFts5Match, toTrigramMatch, toTsQuery } from './search-query.js';

const fts = (q: string) => toFts5Match(planSearch(q).clauses);
const ts = (q: string) => toTsQuery(planSearch(q).clauses);

describe('[search.query-syntax] planSearch', () => {
  it('turns words into AND terms, lowercased', () => {
    expect(fts('Deploy Billing')).toBe('deploy AND billing');
    expect(ts('Deploy Billing')).toBe("'deploy' & 'billing'");
  });
  it('keeps balanced quotes as phrases and drops an unbalanced one', () => {
    expect(fts('"rollback image" "tagged')).toBe('"rollback image" AND tagged');
    expect(ts('"rollback image" "tagged')).toBe("('rollback' <-> 'image') & 'tagged'");
  });
  it('supports a trailing * as a prefix query', () => {
    expect(fts('deplo*')).toBe('deplo*');
    expect(ts('deplo*')).toBe("'deplo':*");
  });
  it('reads OR between alternatives', () => {
    expect(fts('bravo OR delta')).toBe('(bravo) OR (delta)');
    expect(ts('bravo OR delta')).toBe("('bravo') | ('delta')");
    expect(fts('alpha beta OR gamma')).toBe('(alpha AND beta) OR (gamma)');
    expect(planSearch('bravo OR delta').substringClauses).toEqual([
      { include: ['bravo'], exclude: [] },
      { include: ['delta'], exclude: [] },
    ]);
  });
  it('reads NOT and -term as exclusions', () => {
    expect(fts('alpha NOT beta')).toBe('((alpha) NOT beta)');
    expect(fts('alpha -beta -"gamma ray"')).toBe('((alpha) NOT beta NOT "gamma ray")');
    expect(ts('alpha -beta')).toBe("'alpha' & !'beta'");
    expect(planSearch('alpha -beta').substringClauses).toEqual([{ include: ['alpha'], exclude: ['beta'] }]);
    // An alternative with nothing to find is dropped; a query of exclusions only finds nothing.
    expect(planSearch('-beta').clauses).toEqual([]);
    expect(fts('alpha OR -beta')).toBe('alpha');
  });
  it('treats dotted and hyphenated terms as phrases', () => {
    expect(fts('chat-send')).toBe('"chat send"');
    expect(fts('P2.2')).toBe('"p2 2"');
    expect(fts('my-app.config.ts')).toBe('"my app config ts"');
    // PostgreSQL's parser keeps such chunks whole (a host, a version): the query names the chunk.
    expect(ts('my-app.config.ts')).toBe("'my-app.config.ts'");
    expect(planSearch('my-app.config.ts').substrings).toEqual(['my-app.config.ts']);
  });
  it('lower-case and, or, not are words; AND is implied', () => {
    expect(fts('cats and dogs')).toBe('cats AND and AND dogs');
    expect(fts('cats AND dogs')).toBe('cats AND dogs');
  });
  it('neutralises every other operator and syntax: nothing but letters and digits reaches FTS5 outside quotes', () => {
    for (const hostile of ['NEAR(a b', 'col:value', '^y', "'; drop", '"', '*', '\u0000', '(a OR b)', 'a:*']) {
      const plan = planSearch(hostile);
      for (const clause of plan.clauses)
        for (const term of [...clause.positive, ...clause.negative])
          for (const word of term.words) expect(word).toMatch(/^[\p{L}\p{N}\p{M}]+$/u);
      // Outside quoted phrases only words, our parentheses, `*` and our operators remain.
      const bare = toFts5Match(plan.clauses)
        .replace(/"[^"]*"/g, '')
        .replace(/\b(AND|OR|NOT)\b/g, '');
      expect(bare).toMatch(/^[\p{Ll}\p{Lo}\p{N}\p{M}\s()*]*$/u);
    }
    expect(planSearch('*').terms).toEqual([]);
  });
  it('detects CJK and keeps substrings for the trigram index', () => {
    const plan = planSearch('会议 纪要');
    expect(plan.hasCjk).toBe(true);
    expect(plan.substrings).toEqual(['会议', '纪要']);
    expect(toTrigramMatch(plan.substringClauses)).toBeNull();
    expect(toTrigramMatch([{ include: ['产品规划', 'a"b"c'], exclude: [] }])).toBe('"产品规划" AND "a""b""c"');
    expect(toTrigramMatch(planSearch('产品规划 OR 项目计划 -取消了').substringClauses)).toBe(
      '("产品规划") OR (("项目计划") NOT "取消了")',
    );
  });
  it('bounds the query length', () => {
    expect(planSearch('x'.repeat(10_000)).substrings[0].length).toBe(2048);
  });
});
