/**
 * What SQLite's integrity check of a Hermes file means for the person importing it, in their
 * words. Hermes keeps a full-text index (FTS5 tables `messages_fts…`) that Statehouse never reads —
 * it builds its own search indexes — so damage confined to it costs nothing; damage anywhere else
 * may cost conversations, and the import takes each session whole or not at all.
 */
const HERMES_SEARCH_INDEX = /fts|inverted index/i;

export function describeDamage(problems: readonly string[]): string | null {
  if (problems.length === 0) return null;
  const detail = problems.join('; ');
  if (problems.every((problem) => HERMES_SEARCH_INDEX.test(problem))) {
    return (
      `Hermes' own search index in this file is damaged (SQLite: ${detail}). Statehouse does not ` +
      'import that index — it builds its own — so every conversation is imported as usual.'
    );
  }
  return (
    `Part of this file is damaged (SQLite's integrity check: ${detail}). Every conversation that ` +
    'can be read whole is imported; one that cannot is left out, never imported in part.'
  );
}
