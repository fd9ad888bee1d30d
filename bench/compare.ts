/**
 * Compares bench runs of two builds, figure by figure (bench/lib/compare.ts):
 *
 *   npm run bench:compare -- --before b1.md b2.md b3.md --after a1.md a2.md a3.md [--floor 0.1] [--all]
 *
 * Each file is one `npm run bench` output (BENCH_OUT=…) of the same parts; run the two builds
 * interleaved (before, after, before, …) so that both meet the same machine. Prints the figures that
 * moved beyond their run-to-run noise, worst first; `--all` also lists figures only one side has.
 */
import { readFileSync } from 'node:fs';
import { compareRuns, type Moved } from './lib/compare.js';

function parseArgs(argv: string[]) {
  const lists: Record<'before' | 'after', string[]> = { before: [], after: [] };
  let current: 'before' | 'after' | undefined;
  let floor = 0.1;
  let all = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--before' || arg === '--after') current = arg === '--before' ? 'before' : 'after';
    else if (arg === '--floor') floor = Number(argv[++index]);
    else if (arg === '--all') all = true;
    else if (current) lists[current].push(arg);
    else throw new Error(`unexpected argument ${arg} (give --before files… --after files…)`);
  }
  if (lists.before.length === 0 || lists.after.length === 0)
    throw new Error('give at least one file after --before and after --after');
  if (!(floor >= 0)) throw new Error('--floor is a fraction, e.g. 0.1');
  return { ...lists, floor, all };
}

const show = (value: number, unit: string) =>
  `${value.toLocaleString('en-US', { maximumSignificantDigits: 4 })}${unit ? ` ${unit}` : ''}`;

const row = (moved: Moved) =>
  `| ${moved.verdict} | ${moved.key} | ${show(moved.before, moved.unit)} | ${show(moved.after, moved.unit)} | ${
    Number.isFinite(moved.change) ? `${moved.change >= 0 ? '+' : ''}${(moved.change * 100).toFixed(0)} %` : 'from 0'
  } | ±${show(moved.noise, moved.unit)} |`;

const options = parseArgs(process.argv.slice(2));
const read = (files: string[]) => files.map((file) => readFileSync(file, 'utf8'));
const result = compareRuns(read(options.before), read(options.after), options.floor);
const order = { worse: 0, changed: 1, better: 2 } as const;
result.moved.sort((a, b) => order[a.verdict] - order[b.verdict] || Math.abs(b.change) - Math.abs(a.change));
const count = (verdict: Moved['verdict']) => result.moved.filter((moved) => moved.verdict === verdict).length;

console.log(
  `${result.compared} figures compared (${options.before.length} runs before, ${options.after.length} after, noise floor ${(
    options.floor * 100
  ).toFixed(
    0,
  )} %): ${result.moved.length} moved beyond their noise — ${count('worse')} worse, ${count('better')} better, ${count(
    'changed',
  )} changed (no better direction)`,
);
if (result.moved.length > 0) {
  console.log(
    '\n| verdict | figure | before (median) | after (median) | change | noise |\n| --- | --- | ---: | ---: | ---: | ---: |',
  );
  for (const moved of result.moved) console.log(row(moved));
}
if (options.all) {
  for (const [side, keys] of [
    ['only before', result.onlyBefore],
    ['only after', result.onlyAfter],
  ] as const) {
    if (keys.length > 0) console.log(`\n${side} (${keys.length}):\n${keys.map((key) => `- ${key}`).join('\n')}`);
  }
}
