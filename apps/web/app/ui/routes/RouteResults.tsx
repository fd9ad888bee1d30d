import type { RoutePage } from '@statehouse/contracts';
import { Badge, EmptyState, List, Pagination, ResultsCard } from '@/app/ui/common';
import { plural } from '@/lib/format';
import { type RouteListRaw, routeListHref } from '@/lib/route-list-state';
import { RouteRow } from './RouteRow';
import './routes.css';

/** One page of the routing index, keyset paged by profile and key. */
export function RouteResults({ page, raw }: { page: RoutePage; raw: RouteListRaw }) {
  return (
    <ResultsCard
      toolbar={
        <>
          <span>
            {plural(page.items.length, 'route')} on this page
            {raw.cursor ? ' (continued)' : ''}
          </span>
          <span className="route-legend">
            <Badge tone="success" dot>
              active
            </Badge>
            <Badge tone="warning">suspended</Badge>
          </span>
        </>
      }
      pager={
        raw.cursor || page.nextCursor ? (
          <Pagination
            label="Route pages"
            firstHref={raw.cursor ? routeListHref(raw, { cursor: null }) : null}
            nextHref={page.nextCursor ? routeListHref(raw, { cursor: page.nextCursor }) : null}
          />
        ) : null
      }
    >
      {page.items.length === 0 ? (
        <EmptyState
          title="No routes"
          description="Routes appear when a gateway points a chat at a session (PUT /v1/routes), and move with compressions and resets."
        />
      ) : (
        <List label="Routes">
          {page.items.map((route) => (
            <RouteRow key={`${route.profile}\u0000${route.sessionKey}`} route={route} showProfile={!raw.profile} />
          ))}
        </List>
      )}
    </ResultsCard>
  );
}
