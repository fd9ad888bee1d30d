/**
 * Reading untrusted cells of a Hermes file: text that may carry NUL bytes or lone surrogates,
 * JSON that may be invalid, epoch seconds that may be out of range. Every repair is counted, so
 * the report can say what was changed and where.
 */
export class Repairs {
  nul = 0;
  surrogates = 0;
  invalidJson: string[] = [];
  badTimestamps: string[] = [];

  get any(): boolean {
    return this.nul + this.surrogates + this.invalidJson.length + this.badTimestamps.length > 0;
  }

  /** One line per kind of repair, for the report. */
  describe(subject: string): string[] {
    const lines: string[] = [];
    if (this.nul > 0) lines.push(`${subject}: ${this.nul} text value(s) held NUL bytes (stored as U+FFFD)`);
    if (this.surrogates > 0) {
      lines.push(`${subject}: ${this.surrogates} text value(s) held lone surrogates (stored as U+FFFD)`);
    }
    if (this.invalidJson.length > 0) {
      lines.push(`${subject}: invalid JSON in ${summarize(this.invalidJson)} (left out)`);
    }
    if (this.badTimestamps.length > 0) {
      lines.push(`${subject}: timestamps out of range in ${summarize(this.badTimestamps)} (replaced)`);
    }
    return lines;
  }
}

function summarize(fields: string[]): string {
  const counts = new Map<string, number>();
  for (const field of fields) counts.set(field, (counts.get(field) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([field, n]) => (n > 1 ? `${field} ×${n}` : field))
    .join(', ');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * A cell as text. PostgreSQL text cannot hold NUL and neither store can hold a lone surrogate as
 * UTF-8: both become U+FFFD, the same in both dialects.
 */
export function text(value: unknown, repairs: Repairs): string | null {
  if (value === null || value === undefined) return null;
  let result: string;
  if (typeof value === 'string') result = value;
  else if (Buffer.isBuffer(value)) result = decoder.decode(value);
  else result = String(value);
  if (result.includes('\u0000')) {
    repairs.nul++;
    result = result.replaceAll('\u0000', '\uFFFD');
  }
  if (LONE_SURROGATE.test(result)) {
    repairs.surrogates++;
    result = result.replace(LONE_SURROGATES, '\uFFFD');
  }
  return result;
}

/** Non-empty text or null. */
export function nonEmpty(value: unknown, repairs: Repairs): string | null {
  const result = text(value, repairs);
  return result === null || result.trim() === '' ? null : result;
}

/** Every string (and key) of a parsed JSON value, repaired like text(). */
export function cleanJson(value: unknown, repairs: Repairs, depth = 0): unknown {
  if (typeof value === 'string') return text(value, repairs);
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => cleanJson(item, repairs, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[text(key, repairs) ?? key] = cleanJson(item, repairs, depth + 1);
  return out;
}

/** JSON text → value; invalid JSON is recorded under `field` and read as undefined. */
export function json(value: unknown, field: string, repairs: Repairs): unknown {
  const raw = typeof value === 'string' ? value : Buffer.isBuffer(value) ? decoder.decode(value) : null;
  if (raw === null || raw.trim() === '') return undefined;
  try {
    return cleanJson(JSON.parse(raw), repairs);
  } catch {
    repairs.invalidJson.push(field);
    return undefined;
  }
}

export function jsonObject(value: unknown, field: string, repairs: Repairs): Record<string, unknown> | null {
  const parsed = json(value, field, repairs);
  if (parsed === undefined || parsed === null) return null;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    repairs.invalidJson.push(field);
    return null;
  }
  return parsed as Record<string, unknown>;
}

/** The sane window of a timestamp: not before 2000, not more than a day ahead of the import. */
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const AHEAD_MS = 24 * 60 * 60 * 1000;

/**
 * Hermes stores epoch seconds (REAL). A value that is already in milliseconds (≥ 10¹¹, the year
 * 5138 in seconds) is taken as such; anything outside the window is recorded and read as null.
 */
export function epochMs(value: unknown, field: string, repairs: Repairs, now: number): number | null {
  if (value === null || value === undefined || value === '') return null;
  let ms: number;
  if (typeof value === 'number') {
    ms = Math.abs(value) >= 1e11 ? value : value * 1000;
  } else if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    const n = Number(value);
    ms = Math.abs(n) >= 1e11 ? n : n * 1000;
  } else if (typeof value === 'string') {
    ms = Date.parse(value);
  } else {
    ms = Number.NaN;
  }
  if (!Number.isFinite(ms) || ms < EARLIEST_MS || ms > now + AHEAD_MS) {
    repairs.badTimestamps.push(field);
    return null;
  }
  return Math.round(ms);
}

/** A non-negative integer counter (missing or garbage: 0). */
export function counter(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : 0;
  return Number.isFinite(n) && n > 0 ? Math.min(Math.trunc(n), Number.MAX_SAFE_INTEGER) : 0;
}

export function money(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

export const truthy = (value: unknown): boolean =>
  value === 1 || value === true || value === '1' || (typeof value === 'number' && value !== 0);
