/**
 * Before/after comparison of bench runs (`npm run bench:compare`): every figure of the Markdown the
 * bench writes, found by its section, row and column, compared across several runs of each side.
 * A figure moved when the after median is further from the before median than the run-to-run
 * noise: the wider of the two sides' spreads (max − min), and at least `floor` of the before median.
 */

/** Which way is better for a figure, read from its unit. */
export type Direction = 'lower' | 'higher' | 'either';

export interface Figure {
  /** Section › subsection › row › column. */
  key: string;
  /** In a base unit: milliseconds for times, per second for rates, KB for sizes, else as printed. */
  value: number;
  unit: string;
  direction: Direction;
}

const TIME_TO_MS: Record<string, number> = { µs: 0.001, us: 0.001, ms: 1, s: 1000, min: 60_000 };
const SIZE_TO_KB: Record<string, number> = { B: 1 / 1024, KB: 1, MB: 1024, GB: 1024 * 1024 };

/** A cell's leading figure: `1,234 req/s`, `0.25 ms`, `980 µs`, `51 %`, `1.23×`; undefined for text. */
export function parseCell(cell: string): Omit<Figure, 'key'> | undefined {
  const match = /^\**(-?[\d,]*\.?\d+)\s*(µs|us|ms|min|s|B|KB|MB|GB|%|×|x|[a-z]+\/s)?\**(?:$|[\s,;(])/.exec(cell.trim());
  if (!match) return undefined;
  const number = Number(match[1].replaceAll(',', ''));
  if (!Number.isFinite(number)) return undefined;
  const unit = match[2] ?? '';
  if (unit in TIME_TO_MS) return { value: number * TIME_TO_MS[unit], unit: 'ms', direction: 'lower' };
  if (unit in SIZE_TO_KB) return { value: number * SIZE_TO_KB[unit], unit: 'KB', direction: 'lower' };
  if (unit.endsWith('/s')) return { value: number, unit, direction: 'higher' };
  return { value: number, unit, direction: 'either' };
}

const splitRow = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

/**
 * Every figure in one bench Markdown file. Tables are read under their nearest `##`/`###`
 * headings; a row is named by its first cell (a repeated name gets `#2`, `#3`); the first column
 * and cells that do not start with a number are labels, not figures.
 */
export function parseFigures(markdown: string): Map<string, Figure> {
  const figures = new Map<string, Figure>();
  const headings: string[] = [];
  let header: string[] | undefined;
  let seenRows = new Map<string, number>();
  for (const line of markdown.split('\n')) {
    const heading = /^(#{2,4})\s+(.*)$/.exec(line);
    if (heading) {
      headings.length = heading[1].length - 2;
      headings.push(heading[2].trim());
      header = undefined;
      continue;
    }
    if (!line.trimStart().startsWith('|')) {
      header = undefined;
      continue;
    }
    const cells = splitRow(line);
    if (!header) {
      header = cells;
      seenRows = new Map();
      continue;
    }
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
    const label = cells[0];
    const seen = (seenRows.get(label) ?? 0) + 1;
    seenRows.set(label, seen);
    const row = seen === 1 ? label : `${label} #${seen}`;
    cells.slice(1).forEach((cell, index) => {
      const figure = parseCell(cell);
      if (!figure) return;
      const key = [...headings, row, header![index + 1] ?? `column ${index + 2}`].join(' › ');
      figures.set(key, { key, ...figure });
    });
  }
  return figures;
}

export interface Moved {
  key: string;
  unit: string;
  before: number;
  after: number;
  /** (after − before) / before. */
  change: number;
  /** The noise it was judged against, in the figure's unit. */
  noise: number;
  verdict: 'worse' | 'better' | 'changed';
}

export interface Comparison {
  compared: number;
  moved: Moved[];
  /** Figures only one side printed (a part that ran on one side only, a new table). */
  onlyBefore: string[];
  onlyAfter: string[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const spread = (values: readonly number[]) => Math.max(...values) - Math.min(...values);

/** Compares runs of each side figure by figure; `floor` is the least noise, as a fraction of the before median. */
export function compareRuns(before: readonly string[], after: readonly string[], floor = 0.1): Comparison {
  const beforeRuns = before.map(parseFigures);
  const afterRuns = after.map(parseFigures);
  const keys = (runs: Map<string, Figure>[]) => new Set(runs.flatMap((run) => [...run.keys()]));
  const beforeKeys = keys(beforeRuns);
  const afterKeys = keys(afterRuns);
  const moved: Moved[] = [];
  let compared = 0;
  for (const key of beforeKeys) {
    if (!afterKeys.has(key)) continue;
    const was = beforeRuns.flatMap((run) => run.get(key) ?? []);
    const is = afterRuns.flatMap((run) => run.get(key) ?? []);
    // A figure whose unit changed (a count that became a rate) is not the same figure.
    if (was[0].unit !== is[0].unit) continue;
    compared++;
    const beforeMedian = median(was.map((figure) => figure.value));
    const afterMedian = median(is.map((figure) => figure.value));
    const noise = Math.max(
      spread(was.map((figure) => figure.value)),
      spread(is.map((figure) => figure.value)),
      Math.abs(beforeMedian) * floor,
    );
    const delta = afterMedian - beforeMedian;
    if (Math.abs(delta) <= noise) continue;
    const direction = was[0].direction;
    const verdict = direction === 'either' ? 'changed' : (direction === 'lower') === delta < 0 ? 'better' : 'worse';
    moved.push({
      key,
      unit: was[0].unit,
      before: beforeMedian,
      after: afterMedian,
      change: beforeMedian === 0 ? Number.POSITIVE_INFINITY : delta / Math.abs(beforeMedian),
      noise,
      verdict,
    });
  }
  return {
    compared,
    moved,
    onlyBefore: [...beforeKeys].filter((key) => !afterKeys.has(key)),
    onlyAfter: [...afterKeys].filter((key) => !beforeKeys.has(key)),
  };
}
