import { SNIPPET_MATCH_END, SNIPPET_MATCH_START } from '@statehouse/contracts';

/** Snippet for paths where the engine gives none: the first match with some context around it. */
export function makeSnippet(text: string | null, terms: readonly string[], width = 120): string {
  if (!text) return '';
  const lowerText = text.toLowerCase();
  let best = -1;
  let bestTerm = '';
  for (const term of terms) {
    const index = lowerText.indexOf(term.toLowerCase());
    if (index >= 0 && (best < 0 || index < best)) {
      best = index;
      bestTerm = term;
    }
  }
  if (best < 0) return text.slice(0, width) + (text.length > width ? '…' : '');
  const start = Math.max(0, best - Math.floor(width / 3));
  const end = Math.min(text.length, best + bestTerm.length + Math.floor((width * 2) / 3));
  const before = text.slice(start, best);
  const match = text.slice(best, best + bestTerm.length);
  const after = text.slice(best + bestTerm.length, end);
  return `${start > 0 ? '…' : ''}${before}${SNIPPET_MATCH_START}${match}${SNIPPET_MATCH_END}${after}${end < text.length ? '…' : ''}`;
}
