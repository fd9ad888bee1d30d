import { SEARCH_QUERY_MAX } from '@statehouse/contracts';

/**
 * User search text → a safe query plan (docs/domain.md §7.2). The syntax people type — `OR`,
 * `NOT` and `-term`, "quoted phrases", `prefix*`, and dotted or hyphenated terms (`chat-send`,
 * `P2.2`, `my-app.config.ts`) read as phrases — is parsed here into a small tree; the engines'
 * own syntax is then written by us from that tree. No input can reach FTS5's or tsquery's
 * grammar: words are letters/digits only, substrings are always quoted or bound as parameters.
 */
export interface WordTerm {
  /** A phrase of one or more words (letters, digits, marks), lowercased. */
  words: string[];
  prefix: boolean;
  /**
   * A bare chunk of several words as typed (`my-app.config.ts`), lowercased: PostgreSQL's parser
   * keeps such chunks as one token (a host, a version) besides their parts, so its query is built
   * from the chunk itself to tokenize exactly like the indexed text.
   */
  chunk?: string;
}

/** One alternative of a query: every positive term, and none of the negative ones. */
export interface WordClause {
  positive: WordTerm[];
  negative: WordTerm[];
}

/** The same alternative for substring matching: the text as typed, minus syntax. */
export interface SubstringClause {
  include: string[];
  exclude: string[];
}

export interface SearchPlan {
  /** Alternatives (OR) of the word query; each has at least one positive term. */
  clauses: WordClause[];
  /** Alternatives (OR) of the substring query; each has at least one included substring. */
  substringClauses: SubstringClause[];
  /** Every positive word term (for emptiness checks and highlighting). */
  terms: WordTerm[];
  /** Every included substring (for emptiness checks and snippets). */
  substrings: string[];
  hasCjk: boolean;
}

const MAX_TERMS = 32;
const MAX_CLAUSES = 8;
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const CONTROL = /[\u0000-\u001F\u007F]/g;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

interface Token {
  kind: 'term' | 'or' | 'not';
  text: string;
  phrase: boolean;
}

/** Splits into quoted phrases (balanced quotes only) and bare chunks; `OR`/`NOT` only in capitals. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const quoteCount = (text.match(/"/g) ?? []).length;
  const balancedEnd = quoteCount % 2 === 0 ? text.length : text.lastIndexOf('"');
  let inQuote = false;
  let buffer = '';
  const flushBare = (chunk: string) => {
    for (const piece of chunk.split(/\s+/)) {
      if (!piece) continue;
      if (piece === 'OR' || piece === '|') tokens.push({ kind: 'or', text: piece, phrase: false });
      else if (piece === 'NOT') tokens.push({ kind: 'not', text: piece, phrase: false });
      else if (piece === 'AND' || piece === '&') continue;
      else tokens.push({ kind: 'term', text: piece, phrase: false });
    }
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"' && i < balancedEnd) {
      if (inQuote) {
        tokens.push({ kind: 'term', text: buffer, phrase: true });
        // A quote right after `-` (`-"a b"`) negates the phrase: the `-` was left as a bare chunk.
      } else flushBare(buffer);
      buffer = '';
      inQuote = !inQuote;
      continue;
    }
    buffer += char === '"' ? ' ' : char;
  }
  flushBare(buffer);
  return tokens;
}

export function planSearch(raw: string): SearchPlan {
  // Control characters (NUL included: PostgreSQL text cannot hold it) are never searchable.
  const text = Array.from(raw.replace(CONTROL, ' ')).slice(0, SEARCH_QUERY_MAX).join('').normalize('NFC');
  const clauses: WordClause[] = [{ positive: [], negative: [] }];
  const substringClauses: SubstringClause[] = [{ include: [], exclude: [] }];
  let negateNext = false;
  for (const token of tokenize(text)) {
    if (token.kind === 'or') {
      clauses.push({ positive: [], negative: [] });
      substringClauses.push({ include: [], exclude: [] });
      negateNext = false;
      continue;
    }
    if (token.kind === 'not') {
      negateNext = true;
      continue;
    }
    let body = token.text;
    let negative = negateNext;
    negateNext = false;
    if (!token.phrase) {
      if (body === '-') {
        // `-"quoted phrase"`: the dash stood alone before the quote.
        negateNext = true;
        continue;
      }
      if (body.startsWith('-') && body.length > 1) {
        negative = true;
        body = body.slice(1);
      }
    }
    const prefix = !token.phrase && /[\p{L}\p{N}]\*+$/u.test(body);
    const words = (body.match(WORD) ?? []).map((word) => word.toLowerCase());
    const substring = token.phrase ? body.trim() : body.replace(/^[-+*^()]+|[*()]+$/g, '');
    const clause = clauses[clauses.length - 1];
    const substringClause = substringClauses[substringClauses.length - 1];
    // A chunk of several words (`chat-send`, `P2.2`, `my-app.config.ts`) is one phrase.
    if (words.length > 0) {
      const chunk =
        !token.phrase && words.length > 1 ? substring.replace(/\*+$/, '').toLowerCase() || undefined : undefined;
      (negative ? clause.negative : clause.positive).push({ words, prefix, ...(chunk ? { chunk } : {}) });
    }
    if (substring) (negative ? substringClause.exclude : substringClause.include).push(substring);
  }
  // An alternative without a positive term cannot be matched by an index; it is dropped.
  const keptClauses = clauses
    .filter((clause) => clause.positive.length > 0)
    .slice(0, MAX_CLAUSES)
    .map((clause) => ({
      positive: clause.positive.slice(0, MAX_TERMS),
      negative: clause.negative.slice(0, MAX_TERMS),
    }));
  const keptSubstrings = substringClauses
    .filter((clause) => clause.include.length > 0)
    .slice(0, MAX_CLAUSES)
    .map((clause) => ({ include: clause.include.slice(0, MAX_TERMS), exclude: clause.exclude.slice(0, MAX_TERMS) }));
  return {
    clauses: keptClauses,
    substringClauses: keptSubstrings,
    terms: keptClauses.flatMap((clause) => clause.positive),
    substrings: keptSubstrings.flatMap((clause) => clause.include),
    hasCjk: CJK.test(text),
  };
}

/**
 * FTS5 MATCH expression. Words are letters/digits only and lowercased, so a single word is a safe
 * bareword (FTS5's operators are upper-case) — and a bareword is much cheaper than a one-word
 * phrase, which makes FTS5 load position lists for every hit. Phrases are quoted.
 */
export function toFts5Match(clauses: readonly WordClause[]): string {
  const term = (t: WordTerm) => `${t.words.length === 1 ? t.words[0] : `"${t.words.join(' ')}"`}${t.prefix ? '*' : ''}`;
  const clause = (c: WordClause) => {
    const positive = c.positive.map(term).join(' AND ');
    if (c.negative.length === 0) return clauses.length > 1 ? `(${positive})` : positive;
    return `((${positive})${c.negative.map((n) => ` NOT ${term(n)}`).join('')})`;
  };
  return clauses.map(clause).join(' OR ');
}

/** FTS5 trigram MATCH: every substring quoted (inner quotes doubled); null unless all have ≥ 3 characters. */
export function toTrigramMatch(clauses: readonly SubstringClause[]): string | null {
  const all = clauses.flatMap((clause) => [...clause.include, ...clause.exclude]);
  if (all.length === 0 || all.some((term) => Array.from(term).length < 3)) return null;
  const quote = (term: string) => `"${term.replaceAll('"', '""')}"`;
  const clause = (c: SubstringClause) => {
    const include = c.include.map(quote).join(' AND ');
    if (c.exclude.length === 0) return clauses.length > 1 ? `(${include})` : include;
    return `((${include})${c.exclude.map((term) => ` NOT ${quote(term)}`).join('')})`;
  };
  return clauses.map(clause).join(' OR ');
}

/**
 * PostgreSQL tsquery text: words are letters/digits only, quoted as lexemes; a multi-word chunk is
 * one quoted string (quotes and backslashes escaped) that `to_tsquery` tokenizes as `to_tsvector` did.
 */
export function toTsQuery(clauses: readonly WordClause[]): string {
  const term = (t: WordTerm) => {
    if (t.chunk !== undefined)
      return `'${t.chunk.replaceAll('\\', '\\\\').replaceAll("'", "''")}'${t.prefix ? ':*' : ''}`;
    const lexemes = t.words.map((word, index) => `'${word}'${t.prefix && index === t.words.length - 1 ? ':*' : ''}`);
    return lexemes.length > 1 ? `(${lexemes.join(' <-> ')})` : lexemes[0];
  };
  const clause = (c: WordClause) => {
    const parts = [...c.positive.map(term), ...c.negative.map((n) => `!${term(n)}`)];
    return clauses.length > 1 ? `(${parts.join(' & ')})` : parts.join(' & ');
  };
  return clauses.map(clause).join(' | ');
}
