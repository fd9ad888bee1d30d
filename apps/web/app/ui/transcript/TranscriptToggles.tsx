import { SegmentedNav } from '@/app/ui/common';
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
          <SegmentedNav
            label="Transcript scope"
            options={[
              {
                href: conversationToggleHref(sessionId, view, false),
                label: 'This segment',
                current: !view.conversation,
              },
              {
                href: conversationToggleHref(sessionId, view, true),
                label: (
                  <>
                    Whole conversation
                    {/* A no-break space: a plain one is dropped at the start of an item in this flex row. */}
                    <span className="hide-narrow">&nbsp;({chainLength} segments)</span>
                  </>
                ),
                current: view.conversation,
              },
            ]}
          />
        ) : null}
        <SegmentedNav
          label="Hidden rows"
          options={[
            { href: hiddenToggleHref(sessionId, view, false), label: 'Visible only', current: !view.includeHidden },
            {
              href: hiddenToggleHref(sessionId, view, true),
              label: 'Include hidden rows',
              current: view.includeHidden,
            },
          ]}
        />
      </div>
    </div>
  );
}
