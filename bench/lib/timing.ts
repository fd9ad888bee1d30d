/** Wall-clock timing in nanoseconds, and the summaries every benchmark reports. */
export const nowNs = (): bigint => process.hrtime.bigint();

export const msSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p95: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    n: sorted.length,
    mean: sum / sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

export const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/**
 * Runs `fn` `iterations` times (after `warmup` untimed runs); returns per-call milliseconds. With
 * `budgetMs`, stops early once that much time is spent (and at least 20 calls are timed).
 */
export async function sample(
  iterations: number,
  fn: (i: number) => unknown | Promise<unknown>,
  warmup = Math.min(20, Math.ceil(iterations / 10)),
  budgetMs = Number.POSITIVE_INFINITY,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples: number[] = [];
  const began = nowNs();
  for (let i = 0; i < iterations; i++) {
    if (i >= 20 && msSince(began) > budgetMs) break;
    const start = nowNs();
    await fn(i);
    samples.push(msSince(start));
  }
  return samples;
}

/** Lets the event loop breathe and, when exposed, collects garbage between measured phases. */
export async function settle(): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setImmediate(resolve));
}

/** `sample` for synchronous work (the raw ceilings): no promise per call. */
export function sampleSync(
  iterations: number,
  fn: (i: number) => unknown,
  warmup = Math.min(20, Math.ceil(iterations / 10)),
  budgetMs = Number.POSITIVE_INFINITY,
): number[] {
  for (let i = 0; i < warmup; i++) fn(i);
  const samples: number[] = [];
  const began = nowNs();
  for (let i = 0; i < iterations; i++) {
    if (i >= 20 && msSince(began) > budgetMs) break;
    const start = nowNs();
    fn(i);
    samples.push(msSince(start));
  }
  return samples;
}

/**
 * Times several functions call by call in turn (a, b, a, b, …), so a burst of load on the shared
 * machine lands on all of them alike; returns per-call milliseconds for each. Synchronous functions
 * are not awaited. With `budgetMs`, stops early once that much time is spent (after 20 rounds).
 */
export async function sampleAlternating(
  iterations: number,
  fns: readonly ((i: number) => unknown)[],
  warmup = Math.min(10, Math.ceil(iterations / 10)),
  budgetMs = Number.POSITIVE_INFINITY,
): Promise<number[][]> {
  const run = async (fn: (i: number) => unknown, i: number) => {
    const result = fn(i);
    if (result instanceof Promise) await result;
  };
  for (let i = 0; i < warmup; i++) for (const fn of fns) await run(fn, i);
  const samples = fns.map(() => [] as number[]);
  const began = nowNs();
  for (let i = 0; i < iterations; i++) {
    if (i >= 20 && msSince(began) > budgetMs) break;
    for (const [index, fn] of fns.entries()) {
      const start = nowNs();
      const result = fn(i);
      if (result instanceof Promise) await result;
      samples[index].push(msSince(start));
    }
  }
  return samples;
}
