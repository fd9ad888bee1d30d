/**
 * A small seeded PRNG (mulberry32), uniform in [0, 1): data sets and random-but-replayable suites
 * are the same on every run of one seed. The one copy for the state tests, the process-level suites
 * (test/support/process-kit.ts) and the benches (bench/lib/rng.ts).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
