import type { Route, Session } from '@statehouse/contracts';
import Link from 'next/link';
import {
  ApiErrorAlert,
  Badge,
  type BadgeTone,
  Card,
  type DescriptionItem,
  DescriptionList,
  Timestamp,
} from '@/app/ui/common';
import type { Attempt } from '@/lib/attempt';
import { hrefWith } from '@/lib/paths';
import './sessions.css';

const HANDOFF_TONES: Record<NonNullable<Session['handoffState']>, BadgeTone> = {
  pending: 'info',
  running: 'warning',
  completed: 'success',
  failed: 'danger',
};

/** Which gateway keys point here (the routing index) and where a handoff stands. */
export function RoutingCard({ session, routes }: { session: Session; routes: Attempt<Route[]> }) {
  const handoff: DescriptionItem[] = [
    {
      term: 'State',
      detail: session.handoffState ? (
        <Badge tone={HANDOFF_TONES[session.handoffState]} dot>
          {session.handoffState}
        </Badge>
      ) : (
        <span className="text-muted">No handoff</span>
      ),
    },
    { term: 'Platform', detail: session.handoffPlatform },
    ...(session.handoffError
      ? [{ term: 'Error', detail: <span className="text-danger">{session.handoffError}</span> }]
      : []),
  ];
  return (
    <Card title="Routing and handoff" headingLevel={2}>
      <div className="metadata-section">
        <h3 className="metadata-section__title">Routes to this session</h3>
        {!routes.ok ? (
          <ApiErrorAlert error={routes.error} title="Routes could not be loaded" />
        ) : routes.value.length === 0 ? (
          <p className="routing-card__empty">
            No gateway key routes here{session.sessionKey ? '' : ' (this session has no routing key)'}.
          </p>
        ) : (
          <ul className="route-mini-list" aria-label="Routes to this session">
            {routes.value.map((route) => (
              <li key={`${route.profile}:${route.sessionKey}`} className="route-mini">
                <code className="route-mini__key">{route.sessionKey}</code>
                <span className="route-mini__meta meta-row">
                  {route.suspended ? (
                    <Badge tone="warning">Suspended</Badge>
                  ) : (
                    <Badge tone="success" dot>
                      Active
                    </Badge>
                  )}
                  <span>
                    updated <Timestamp iso={route.updatedAt} />
                  </span>
                </span>
              </li>
            ))}
          </ul>
        )}
        <p className="routing-card__more">
          <Link href={hrefWith('/routes', { profile: session.profile })}>All routes in {session.profile}</Link>
        </p>
      </div>
      <div className="metadata-section">
        <h3 className="metadata-section__title">Handoff</h3>
        <DescriptionList items={handoff} />
      </div>
    </Card>
  );
}
