import type { MessageRole, SearchResponse } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, type BadgeTone, ListItem, Timestamp } from '@/app/ui/common';
import { humanize } from '@/lib/format';
import { messageAnchor, sessionHref } from '@/lib/paths';
import { Snippet } from './Snippet';
import './search.css';

/** The transcript's role colours, so a hit looks like the message it links to. */
const ROLE_TONES: Record<MessageRole, BadgeTone> = {
  user: 'accent',
  assistant: 'success',
  tool: 'warning',
  system: 'neutral',
  session_meta: 'neutral',
};

/** One matching message; its title opens the transcript at that message. */
export function SearchHit({ hit, showProfile }: { hit: SearchResponse['items'][number]; showProfile: boolean }) {
  return (
    <ListItem className="hit">
      <h3 className="hit__heading">
        <Link
          className="hit__title stretched-link"
          href={sessionHref(hit.sessionId, { at: hit.messageId }, messageAnchor(hit.messageId))}
        >
          {humanize(hit.role)} message
          {hit.sessionId !== hit.tipSessionId ? ` in an earlier segment (${hit.sessionTitle ?? hit.sessionId})` : ''}
        </Link>
      </h3>
      {hit.role === 'tool' ? (
        // Tool output is shown as the transcript shows it: verbatim, in monospace.
        <pre className="hit__snippet hit__snippet--tool" data-role="tool">
          <Snippet text={hit.snippet} />
        </pre>
      ) : (
        <p className="hit__snippet">
          <Snippet text={hit.snippet} />
        </p>
      )}
      <div className="hit__meta meta-row">
        <Badge tone={ROLE_TONES[hit.role]}>{humanize(hit.role)}</Badge>
        {showProfile ? <Badge>{hit.profile}</Badge> : null}
        <Badge tone="info">{hit.source}</Badge>
        <Timestamp iso={hit.timestamp} />
      </div>
    </ListItem>
  );
}
