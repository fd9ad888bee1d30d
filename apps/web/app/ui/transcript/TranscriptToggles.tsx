import Link from 'next/link';
import { conversationToggleHref, hiddenToggleHref, type TranscriptView } from '@/lib/transcript';
import './transcript.css';

/** Scope (this segment or the whole chain) and hidden rows, as links: each is a URL of its own. */
export function TranscriptToggles({
  sessionId,
  view,
  chainLength,
}: {
  sessionId: string;
  view: TranscriptView;
  chainLength: number;
}) {
  return (
    <div className="transcript-toolbar">
      <div className="transcript-toggles">
        {chainLength > 1 ? (
          <nav className="segmented" aria-label="Transcript scope">
            <Link
              className="segmented__option"
              href={conversationToggleHref(sessionId, view, false)}
              aria-current={!view.conversation ? 'true' : undefined}
            >
              This segment
            </Link>
            <Link
              className="segmented__option"
              href={conversationToggleHref(sessionId, view, true)}
              aria-current={view.conversation ? 'true' : undefined}
            >
              Whole conversation<span className="hide-narrow"> ({chainLength} segments)</span>
            </Link>
          </nav>
        ) : null}
        <nav className="segmented" aria-label="Hidden rows">
          <Link
            className="segmented__option"
            href={hiddenToggleHref(sessionId, view, false)}
            aria-current={!view.includeHidden ? 'true' : undefined}
          >
            Visible only
          </Link>
          <Link
            className="segmented__option"
            href={hiddenToggleHref(sessionId, view, true)}
            aria-current={view.includeHidden ? 'true' : undefined}
          >
            Include hidden rows
          </Link>
        </nav>
      </div>
    </div>
  );
}
