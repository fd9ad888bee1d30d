import { seededRandom } from '../../test/support/process-kit.js';

/** Seeded PRNG (the kit's mulberry32): the same seed gives the same data set on every run. */
export class Rng {
  readonly #random: () => number;

  constructor(seed: number) {
    this.#random = seededRandom(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.#random();
  }

  int(min: number, maxInclusive: number): number {
    return min + Math.floor(this.next() * (maxInclusive - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

/** Zipf-distributed ranks over `size` items (rank 0 is the most frequent). */
export class Zipf {
  readonly #cumulative: Float64Array;

  constructor(size: number, exponent = 1) {
    this.#cumulative = new Float64Array(size);
    let total = 0;
    for (let rank = 0; rank < size; rank++) {
      total += 1 / (rank + 1) ** exponent;
      this.#cumulative[rank] = total;
    }
    for (let rank = 0; rank < size; rank++) this.#cumulative[rank] /= total;
  }

  sample(rng: Rng): number {
    const u = rng.next();
    let lo = 0;
    let hi = this.#cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#cumulative[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
