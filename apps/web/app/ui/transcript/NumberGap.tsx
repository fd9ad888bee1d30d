import './transcript.css';

/**
 * Where the numbering skips: messages are numbered by their place in the session (every row
 * counts, so a number names the same message in every view and in links), and the rows this view
 * leaves out — hidden scaffolding, rewound or compacted messages — keep theirs. The marker says
 * which numbers are missing and why, instead of a silent jump (#2 right after the start).
 * `previous`: the number shown above (0: the start of the session; null: unknown, no marker).
 */
export function NumberGap({ previous, next }: { previous: number | null; next: number }) {
  if (previous === null || next - previous <= 1) return null;
  const from = previous + 1;
  const to = next - 1;
  const count = to - from + 1;
  return (
    <li className="transcript-gap" data-gap={`${from}-${to}`}>
      <p className="transcript-gap__text">
        {count === 1 ? `Message #${from} is` : `Messages #${from}–#${to} are`} not shown in this view (hidden, rewound
        or compacted): numbers count every message of the session.
      </p>
    </li>
  );
}
