import type { LineageResponse, Session } from '@statehouse/contracts';
import { Badge, type Crumb, PageHeader, Timestamp } from '@/app/ui/common';
import { sessionHeading, sessionStatus } from '@/lib/session-display';
import { BusyBadge } from './BusyNotice';

export const sessionBreadcrumbs = (id: string): Crumb[] => [
  { href: '/sessions', label: 'Sessions' },
  { label: <code>{id}</code> },
];

/** The session's title and state at a glance: flags, id, profile, source, status, place in its chain. */
export function SessionHeader({ session, lineage }: { session: Session; lineage: LineageResponse | null }) {
  const heading = sessionHeading(session);
  const status = sessionStatus(session);
  const chainLength = lineage?.chain.length ?? 1;
  return (
    <PageHeader
      breadcrumbs={sessionBreadcrumbs(session.id)}
      title={heading.untitled ? <span className="text-muted">{heading.text}</span> : heading.text}
      titleTestId="session-title"
      badges={
        <>
          {session.turn ? <BusyBadge turn={session.turn} /> : null}
          {session.pinned ? <Badge tone="accent">Pinned</Badge> : null}
          {session.archived ? <Badge tone="warning">Archived</Badge> : null}
          {session.hidden ? <Badge tone="warning">Hidden</Badge> : null}
        </>
      }
      meta={
        <>
          <code>{session.id}</code>
          <Badge>{session.profile}</Badge>
          <Badge tone="info">{session.source}</Badge>
          <Badge tone={status.tone} dot>
            {status.label}
            {status.reason ? ` · ${status.reason}` : ''}
          </Badge>
          {chainLength > 1 && lineage ? (
            <span>
              segment {lineage.chain.indexOf(session.id) + 1} of {chainLength}
            </span>
          ) : null}
          <span>
            last active <Timestamp iso={session.lastActivityAt} />
          </span>
        </>
      }
    />
  );
}
