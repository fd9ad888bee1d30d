import { describe, expect, it } from 'vitest';
import { compareRuns, parseCell, parseFigures } from '../../bench/lib/compare.js';

const run = (healthz: string, read: string, rows = '1,000') => `# Benchmarks

## API throughput (SQLite)

### Requests per second

| endpoint | requests/s | p50 | rows |
| --- | ---: | ---: | ---: |
| \`GET /healthz\` | ${healthz} | 0.25 ms | ${rows} |
| \`GET /v1/sessions/:id\` | ${read} | 980 µs | ${rows} |
| \`GET /v1/sessions/:id\` | ${read} | 1.02 ms | ${rows} |

Prose between tables | is not a row.
`;

describe('bench comparison', () => {
  it('reads a cell’s leading figure in a base unit, and which way is better', () => {
    expect(parseCell('980 µs')).toEqual({ value: 0.98, unit: 'ms', direction: 'lower' });
    expect(parseCell('2,143 msg/s, p99 35.4 ms')).toEqual({ value: 2143, unit: 'msg/s', direction: 'higher' });
    expect(parseCell('**1.5 MB**')).toEqual({ value: 1536, unit: 'KB', direction: 'lower' });
    expect(parseCell('51 %')).toEqual({ value: 51, unit: '%', direction: 'either' });
    expect(parseCell('`GET /healthz`')).toBeUndefined();
    expect(parseCell('2026-12-07')).toBeUndefined();
    expect(parseCell('met')).toBeUndefined();
  });

  it('names each figure by its headings, row and column; a repeated row gets its ordinal', () => {
    const figures = parseFigures(run('5,000 req/s', '2,500 req/s'));
    expect([...figures.keys()]).toContain(
      'API throughput (SQLite) › Requests per second › `GET /healthz` › requests/s',
    );
    expect(figures.get('API throughput (SQLite) › Requests per second › `GET /v1/sessions/:id` #2 › p50')?.value).toBe(
      1.02,
    );
    // Labels are not figures; neither is prose outside a table.
    expect([...figures.keys()].some((key) => key.endsWith('› endpoint'))).toBe(false);
    expect(figures.size).toBe(9);
  });

  it('flags a figure only when its move exceeds both sides’ spread and the floor', () => {
    const before = [
      run('5,000 req/s', '2,500 req/s'),
      run('5,600 req/s', '2,520 req/s'),
      run('5,200 req/s', '2,480 req/s'),
    ];
    const after = [
      run('5,300 req/s', '2,000 req/s'),
      run('5,500 req/s', '2,050 req/s'),
      run('4,900 req/s', '1,980 req/s'),
    ];
    const result = compareRuns(before, after);
    expect(result.compared).toBe(9);
    // /healthz moved 100 req/s against a 600 req/s spread: noise. The read lost 20 %: worse.
    expect(result.moved.map((moved) => [moved.key.split(' › ').slice(2).join(' › '), moved.verdict])).toEqual([
      ['`GET /v1/sessions/:id` › requests/s', 'worse'],
      ['`GET /v1/sessions/:id` #2 › requests/s', 'worse'],
    ]);
    expect(result.moved[0].change).toBeCloseTo(-0.2, 2);
  });

  it('judges a small move against the floor when runs agree, and says which figures one side lacks', () => {
    const result = compareRuns([run('5,000 req/s', '2,500 req/s')], [run('5,400 req/s', '2,500 req/s', '1,200')], 0.05);
    expect(result.moved.map((moved) => moved.verdict)).toEqual(['better', 'changed', 'changed', 'changed']);
    const onlyOne = compareRuns([run('1 req/s', '1 req/s')], ['## Other\n\n| a | b |\n| --- | --- |\n| x | 1 ms |\n']);
    expect(onlyOne.compared).toBe(0);
    expect(onlyOne.onlyAfter).toEqual(['Other › x › b']);
    expect(onlyOne.onlyBefore).toHaveLength(9);
  });
});
