/** Seeded PRNG (mulberry32): the same seed gives the same data set on every run. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
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
