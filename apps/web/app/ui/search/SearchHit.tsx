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
      <h2 className="hit__heading">
        <Link
          className="hit__title stretched-link"
          href={sessionHref(hit.sessionId, { at: hit.messageId }, messageAnchor(hit.messageId))}
        >
          {hit.sessionTitle ?? hit.sessionId}
        </Link>
      </h2>
      <p className="hit__snippet">
        <Snippet text={hit.snippet} />
      </p>
      <div className="hit__meta meta-row">
        <Badge tone={ROLE_TONES[hit.role]}>{humanize(hit.role)}</Badge>
        {showProfile ? <Badge>{hit.profile}</Badge> : null}
        <Badge tone="info">{hit.source}</Badge>
        <code>#{hit.messageId}</code>
        <Timestamp iso={hit.timestamp} />
        {hit.tipSessionId !== hit.sessionId ? (
          <span className="lineage-hint">
            <span aria-hidden="true">↳</span> continues in {hit.tipSessionId}
          </span>
        ) : null}
      </div>
    </ListItem>
  );
}
