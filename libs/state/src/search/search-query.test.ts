import { describe, expect, it } from 'vitest';
import { planSearch, toFts5Match, toTrigramMatch, toTsQuery } from './search-query.js';

describe('planSearch', () => {
  it('turns words into quoted AND terms, lowercased', () => {
    const plan = planSearch('Deploy Billing');
    expect(toFts5Match(plan.terms)).toBe('deploy AND billing');
    expect(toTsQuery(plan.terms)).toBe("'deploy' & 'billing'");
  });
  it('keeps balanced quotes as phrases and drops an unbalanced one', () => {
    const plan = planSearch('"rollback image" "tagged');
    expect(toFts5Match(plan.terms)).toBe('"rollback image" AND tagged');
    expect(toTsQuery(plan.terms)).toBe("('rollback' <-> 'image') & 'tagged'");
  });
  it('supports a trailing * as a prefix query', () => {
    expect(toFts5Match(planSearch('deplo*').terms)).toBe('deplo*');
    expect(toTsQuery(planSearch('deplo*').terms)).toBe("'deplo':*");
  });
  it('keeps FTS5 keywords harmless (operators are upper-case; words are lowercased)', () => {
    expect(toFts5Match(planSearch('NOT OR AND NEAR').terms)).toBe('not AND or AND and AND near');
  });
  it('neutralises operators and syntax: nothing but letters and digits reaches the engine', () => {
    for (const hostile of ['NEAR(a b', 'a OR b', 'col:value', '-x', '^y', "'; drop", '"', '*', '\u0000']) {
      const match = toFts5Match(planSearch(hostile).terms);
      expect(match).not.toMatch(/[():^;']/);
      for (const term of planSearch(hostile).terms)
        for (const word of term.words) expect(word).toMatch(/^[\p{L}\p{N}\p{M}]+$/u);
    }
    expect(planSearch('*').terms).toEqual([]);
  });
  it('detects CJK and keeps substrings for the trigram index', () => {
    const plan = planSearch('会议 纪要');
    expect(plan.hasCjk).toBe(true);
    expect(plan.substrings).toEqual(['会议', '纪要']);
    expect(toTrigramMatch(plan.substrings)).toBeNull();
    expect(toTrigramMatch(['产品规划', 'a"b"c'])).toBe('"产品规划" AND "a""b""c"');
  });
  it('bounds the query length', () => {
    expect(planSearch('x'.repeat(10_000)).substrings[0].length).toBe(2048);
  });
});
