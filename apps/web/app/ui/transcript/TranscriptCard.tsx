import type { LineageResponse, Session } from '@statehouse/contracts';
import { ApiErrorAlert, Card } from '@/app/ui/common';
import type { Attempt } from '@/lib/attempt';
import type { ConversationSegment } from '@/lib/conversation';
import { plural } from '@/lib/format';
import type { TranscriptPage, TranscriptView } from '@/lib/transcript';
import { ConversationTranscript } from './ConversationTranscript';
import { SegmentTranscript } from './SegmentTranscript';
import { TranscriptToggles } from './TranscriptToggles';
import './transcript.css';

interface TranscriptCardProps {
  session: Session;
  view: TranscriptView;
  lineage: Attempt<LineageResponse>;
  /** The page of this segment (segment view). */
  transcript: Attempt<TranscriptPage> | null;
  /** Every segment of the chain (`view=conversation`), when the lineage loaded. */
  conversation: ConversationSegment[] | null;
}

/** The transcript of the session, or of its whole compression chain, with the view toggles. */
export function TranscriptCard({ session, view, lineage, transcript, conversation }: TranscriptCardProps) {
  const chainLength = lineage.ok ? lineage.value.chain.length : 1;
  return (
    <Card
      title={view.conversation ? 'Whole conversation' : 'Transcript'}
      description={
        view.conversation
          ? `${plural(chainLength, 'segment')}, root to tip, read as one transcript`
          : plural(session.messageCount, 'visible message')
      }
      padded
    >
      <div className="transcript-section">
        <TranscriptToggles sessionId={session.id} view={view} chainLength={chainLength} />
        {conversation ? (
          <ConversationTranscript segments={conversation} view={view} currentId={session.id} />
        ) : view.conversation && !lineage.ok ? (
          <ApiErrorAlert error={lineage.error} title="The conversation could not be assembled" />
        ) : transcript ? (
          <SegmentTranscript session={session} view={view} result={transcript} chainLength={chainLength} />
        ) : null}
      </div>
    </Card>
  );
}
