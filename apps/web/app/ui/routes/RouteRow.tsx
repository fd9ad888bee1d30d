import type { Route } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, ListItem, Timestamp } from '@/app/ui/common';
import { sessionHref } from '@/lib/paths';
import { sessionStatus } from '@/lib/session-display';
import './routes.css';

/** The profile part of a key is shown apart, so a rename's effect (agent:old: → agent:new:) is visible. */
function KeyText({ route }: { route: Route }) {
  const prefix = `agent:${route.profile}:`;
  if (!route.sessionKey.startsWith(prefix)) return <code className="route-row__key">{route.sessionKey}</code>;
  return (
    <code className="route-row__key">
      <span className="route-row__key-prefix">agent:</span>
      <span className="route-row__key-profile">{route.profile}</span>
      <span className="route-row__key-prefix">:</span>
      {route.sessionKey.slice(prefix.length)}
    </code>
  );
}

/** One gateway key → the session it resolves to, with the route's and the session's state. */
export function RouteRow({ route, showProfile }: { route: Route; showProfile: boolean }) {
  const session = route.session;
  const status = session ? sessionStatus(session) : null;
  return (
    <ListItem className="route-row">
      <div className="route-row__main">
        <h2 className="route-row__heading" data-session-key={route.sessionKey}>
          <KeyText route={route} />
        </h2>
        <p className="route-row__target">
          <span aria-hidden="true" className="route-row__arrow">
            →{' '}
          </span>
          {session ? (
            <Link href={sessionHref(route.sessionId)} className="route-row__session">
              {session.title ?? <code>{route.sessionId}</code>}
              <span className="visually-hidden"> (session {route.sessionId})</span>
            </Link>
          ) : (
            <span className="route-row__missing">
              <code>{route.sessionId}</code> — session missing
            </span>
          )}
          {session?.title ? <span className="route-row__id"> {route.sessionId}</span> : null}
        </p>
      </div>
      <div className="route-row__state">
        {route.suspended ? (
          <Badge tone="warning" title="The gateway will not deliver to this session until resumed">
            Suspended
          </Badge>
        ) : (
          <Badge tone="success" dot>
            Active
          </Badge>
        )}
        {status ? (
          <Badge tone={status.tone} dot>
            {status.label}
            {status.reason ? ` · ${status.reason}` : ''}
          </Badge>
        ) : (
          <Badge tone="danger">missing</Badge>
        )}
      </div>
      <div className="route-row__meta meta-row">
        {showProfile ? <Badge>{route.profile}</Badge> : null}
        {session ? <Badge tone="info">{session.source}</Badge> : null}
        <span>
          updated <Timestamp iso={route.updatedAt} />
        </span>
      </div>
    </ListItem>
  );
}
