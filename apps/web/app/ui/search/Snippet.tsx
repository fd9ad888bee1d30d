import { SNIPPET_MATCH_END, SNIPPET_MATCH_START } from '@statehouse/contracts';
import './search.css';

/**
 * Splits an API snippet into text and matches. The API wraps matches in \u0002 … \u0003 (control
 * characters that cannot occur in stored text), so no HTML from message content is ever trusted.
 */
export function snippetSegments(snippet: string): { text: string; match: boolean }[] {
  const segments: { text: string; match: boolean }[] = [];
  let match = false;
  let buffer = '';
  const flush = () => {
    if (buffer) segments.push({ text: buffer, match });
    buffer = '';
  };
  for (const char of snippet) {
    if (char === SNIPPET_MATCH_START && !match) {
      flush();
      match = true;
    } else if (char === SNIPPET_MATCH_END && match) {
      flush();
      match = false;
    } else if (char !== SNIPPET_MATCH_START && char !== SNIPPET_MATCH_END) {
      buffer += char;
    }
  }
  flush();
  return segments;
}

export function Snippet({ text }: { text: string }) {
  return (
    <>
      {snippetSegments(text).map((segment, index) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional and rendered once
        segment.match ? <mark key={index}>{segment.text}</mark> : <span key={index}>{segment.text}</span>,
      )}
    </>
  );
}
