import { ListRoutesQuerySchema, type Route } from '@statehouse/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Alert, Badge, ButtonLink, Card, EmptyState, List, ListItem, Pagination } from '@/app/ui/common';
import { ApiErrorAlert } from '@/app/ui/common/ApiErrorAlert';
import { Timestamp } from '@/app/ui/common/Timestamp';
import { listRoutes } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { plural } from '@/lib/format';
import { firstParam, hrefWith, type RawSearchParams, sessionHref } from '@/lib/paths';
import { sessionStatus } from '@/lib/session-display';

export const metadata: Metadata = { title: 'Routes' };

const ROUTE_KEYS = ['profile', 'sessionId', 'limit', 'cursor'] as const;
type RouteRaw = Partial<Record<(typeof ROUTE_KEYS)[number], string>>;

const routesHref = (raw: RouteRaw, changes: Partial<Record<keyof RouteRaw, string | null>> = {}) =>
  hrefWith('/routes', { ...raw, ...changes });

/**
 * The gateway routing index (SPEC §2.4): which session each chat key resolves to. Keyset paging by
 * profile and key; the profile comes from the header's switcher.
 */
export default async function RoutesPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const raw: RouteRaw = {};
  for (const key of ROUTE_KEYS) {
    const value = firstParam(params[key])?.trim();
    if (value) raw[key] = value;
  }
  const parsed = ListRoutesQuerySchema.safeParse(raw);
  const result = parsed.success ? await attempt(() => listRoutes(parsed.data)) : null;

  return (
    <>
      <div className="page-header">
        <div>
          <h1 className="page-header__title">Routes</h1>
          <p className="page-header__description">
            Gateway keys and the session each one resolves to
            {raw.profile ? (
              <>
                {' '}
                in profile <strong>{raw.profile}</strong>
              </>
            ) : (
              ', across your profiles'
            )}
            . Keys read <code>agent:&lt;profile&gt;:&lt;platform&gt;:&lt;chat type&gt;:&lt;chat id&gt;</code>.
          </p>
        </div>
      </div>

      {raw.sessionId ? (
        <Alert
          tone="info"
          title={
            <>
              Routes to session <code>{raw.sessionId}</code>
            </>
          }
          actions={
            <ButtonLink href={routesHref(raw, { sessionId: null, cursor: null })} size="sm">
              Show all routes
            </ButtonLink>
          }
        />
      ) : null}

      {!parsed.success ? (
        <Alert
          tone="danger"
          role="alert"
          title="This address is not valid"
          actions={
            <ButtonLink href="/routes" size="sm">
              All routes
            </ButtonLink>
          }
        >
          <p>{parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}</p>
        </Alert>
      ) : result && !result.ok ? (
        <ApiErrorAlert error={result.error} title="Routes could not be loaded" />
      ) : result?.ok ? (
        <Card className="results-card" padded>
          <div className="results-toolbar">
            <span>
              {plural(result.value.items.length, 'route')} on this page
              {raw.cursor ? ' (continued)' : ''}
            </span>
            <span className="route-legend">
              <Badge tone="success" dot>
                active
              </Badge>
              <Badge tone="warning">suspended</Badge>
            </span>
          </div>
          {result.value.items.length === 0 ? (
            <EmptyState
              title="No routes"
              description="Routes appear when a gateway points a chat at a session (PUT /v1/routes), and move with compressions and resets."
            />
          ) : (
            <List label="Routes">
              {result.value.items.map((route) => (
                <RouteRow key={`${route.profile}\u0000${route.sessionKey}`} route={route} showProfile={!raw.profile} />
              ))}
            </List>
          )}
          {raw.cursor || result.value.nextCursor ? (
            <div className="results-footer">
              <Pagination
                label="Route pages"
                firstHref={raw.cursor ? routesHref(raw, { cursor: null }) : null}
                nextHref={result.value.nextCursor ? routesHref(raw, { cursor: result.value.nextCursor }) : null}
              />
            </div>
          ) : null}
        </Card>
      ) : null}
    </>
  );
}

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

function RouteRow({ route, showProfile }: { route: Route; showProfile: boolean }) {
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
      <div className="route-row__meta">
        {showProfile ? <Badge>{route.profile}</Badge> : null}
        {session ? <Badge tone="info">{session.source}</Badge> : null}
        <span>
          updated <Timestamp iso={route.updatedAt} />
        </span>
      </div>
    </ListItem>
  );
}
