import { SEARCH_QUERY_MAX } from '@statehouse/contracts';

/**
 * User search text → a safe query plan. No input can reach the engines' query syntax: words are
 * letters/digits only and quoted by us; quotes only group words into phrases when balanced.
 */
export interface WordTerm {
  /** A phrase of one or more words (letters, digits, marks). */
  words: string[];
  prefix: boolean;
}

export interface SearchPlan {
  /** Word-index terms (AND). Empty when nothing searchable remains. */
  terms: WordTerm[];
  /** Substring terms (AND), as typed minus quotes; each matched anywhere in the text. */
  substrings: string[];
  hasCjk: boolean;
}

const MAX_TERMS = 32;
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const CONTROL = /[\u0000-\u001F\u007F]/g;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function planSearch(raw: string): SearchPlan {
  // Control characters (NUL included: PostgreSQL text cannot hold it) are never searchable.
  const text = Array.from(raw.replace(CONTROL, ' ')).slice(0, SEARCH_QUERY_MAX).join('').normalize('NFC');
  const terms: WordTerm[] = [];
  const substrings: string[] = [];

  // Balanced "…" groups are phrases; an odd trailing quote is just dropped.
  const quoteCount = (text.match(/"/g) ?? []).length;
  const segments: { phrase: boolean; body: string }[] = [];
  if (quoteCount >= 2) {
    const lastQuote = quoteCount % 2 === 0 ? text.length : text.lastIndexOf('"');
    const balanced = text.slice(0, lastQuote);
    for (const [index, body] of balanced.split('"').entries()) segments.push({ phrase: index % 2 === 1, body });
    if (lastQuote < text.length) segments.push({ phrase: false, body: text.slice(lastQuote + 1) });
  } else {
    segments.push({ phrase: false, body: text.replaceAll('"', ' ') });
  }

  for (const segment of segments) {
    if (segment.phrase) {
      const words = segment.body.match(WORD) ?? [];
      if (words.length) terms.push({ words: words.map(lower), prefix: false });
      const phrase = segment.body.trim();
      if (phrase) substrings.push(phrase);
      continue;
    }
    // Outside quotes: each whitespace-separated chunk; a trailing * asks for a prefix match.
    for (const chunk of segment.body.split(/\s+/)) {
      if (!chunk) continue;
      const prefix = /\p{L}\*+$|\p{N}\*+$/u.test(chunk);
      const words = chunk.match(WORD) ?? [];
      const cleaned = chunk.replace(/^[-+*^()]+|[*()]+$/g, '');
      if (cleaned) substrings.push(cleaned);
      words.forEach((word, index) => {
        terms.push({ words: [lower(word)], prefix: prefix && index === words.length - 1 });
      });
    }
  }
  return {
    terms: terms.slice(0, MAX_TERMS),
    substrings: substrings.slice(0, MAX_TERMS),
    hasCjk: CJK.test(text),
  };
}

const lower = (word: string) => word.toLowerCase();

/**
 * FTS5 MATCH expression. Words are letters/digits only and lowercased, so a single word is a safe
 * bareword (FTS5's operators are upper-case) — and a bareword is much cheaper than a one-word
 * phrase, which makes FTS5 load position lists for every hit. Phrases are quoted.
 */
export function toFts5Match(terms: readonly WordTerm[]): string {
  return terms
    .map((term) => `${term.words.length === 1 ? term.words[0] : `"${term.words.join(' ')}"`}${term.prefix ? '*' : ''}`)
    .join(' AND ');
}

/** FTS5 trigram MATCH: every substring quoted (inner quotes doubled); only terms of ≥ 3 characters. */
export function toTrigramMatch(substrings: readonly string[]): string | null {
  const usable = substrings.filter((term) => Array.from(term).length >= 3);
  if (usable.length === 0) return null;
  return usable.map((term) => `"${term.replaceAll('"', '""')}"`).join(' AND ');
}

/** PostgreSQL tsquery text: words are letters/digits only, quoted as lexemes. */
export function toTsQuery(terms: readonly WordTerm[]): string {
  return terms
    .map((term) => {
      const lexemes = term.words.map((word, index) => {
        const last = index === term.words.length - 1;
        return `'${word}'${term.prefix && last ? ':*' : ''}`;
      });
      return lexemes.length > 1 ? `(${lexemes.join(' <-> ')})` : lexemes[0];
    })
    .join(' & ');
}
