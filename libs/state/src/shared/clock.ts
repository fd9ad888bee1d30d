/** Injected time, so tests pin TTLs, cutoffs and ordering without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now() {
    return this.current;
  }
  set(epochMs: number) {
    this.current = epochMs;
  }
  advance(ms: number) {
    this.current += ms;
  }
}

export const toIso = (epochMs: number) => new Date(epochMs).toISOString();
export const toIsoOrNull = (epochMs: number | null) => (epochMs === null ? null : toIso(epochMs));
