import { ValidationError } from './errors.js';

/**
 * Titles are shown everywhere and must be unique per profile, so they are normalised first:
 * control, zero-width and bidi characters stripped, whitespace collapsed, at most 100 characters
 * (docs/domain.md §2.2): a longer user title is refused, a longer automatic one is cut with an
 * ellipsis.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD]/g;
export const TITLE_MAX = 100;

export function sanitizeTitle(
  raw: string | null | undefined,
  source: 'user' | 'automatic' = 'automatic',
): string | null {
  if (raw === null || raw === undefined) return null;
  const cleaned = raw
    .normalize('NFC')
    .replace(INVISIBLE, '')
    .replace(/[\t\n\r]/g, ' ')
    .replace(CONTROL, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned.length === 0) return null;
  // Cut on code points, never inside a surrogate pair.
  const codePoints = Array.from(cleaned);
  if (codePoints.length <= TITLE_MAX) return cleaned;
  if (source === 'user') {
    throw new ValidationError(`a title is at most ${TITLE_MAX} characters (this one has ${codePoints.length})`, [
      { path: 'title', message: `at most ${TITLE_MAX} characters` },
    ]);
  }
  return `${codePoints
    .slice(0, TITLE_MAX - 1)
    .join('')
    .trimEnd()}…`;
}

/** How a title of this provenance is sanitized: user titles are refused when too long, others cut. */
export const titleKind = (source: TitleProvenance): 'user' | 'automatic' => (source === 'user' ? 'user' : 'automatic');

const TITLE_RANK = { derived: 0, llm: 1, user: 2 } as const;
export type TitleProvenance = keyof typeof TITLE_RANK;

/** An automatic title never replaces a higher-ranked one (derived < llm < user). */
export function titleMayReplace(current: TitleProvenance | null, incoming: TitleProvenance): boolean {
  return current === null || TITLE_RANK[incoming] >= TITLE_RANK[current];
}
