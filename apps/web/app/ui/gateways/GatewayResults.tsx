import type { GatewayPage } from '@statehouse/contracts';
import { Badge, EmptyState, List, Pagination, ResultsCard } from '@/app/ui/common';
import { plural } from '@/lib/format';
import { type GatewayListRaw, gatewayListHref } from '@/lib/gateway-list-state';
import { GatewayRow } from './GatewayRow';
import './gateways.css';

/** One page of registered gateways, keyset paged by profile and id. */
export function GatewayResults({ page, raw }: { page: GatewayPage; raw: GatewayListRaw }) {
  return (
    <ResultsCard
      toolbar={
        <>
          <span>
            {plural(page.items.length, 'gateway')} on this page
            {raw.cursor ? ' (continued)' : ''}
          </span>
          <span className="gateway-legend">
            <Badge tone="success" dot>
              alive
            </Badge>
            <Badge tone="danger" dot>
              silent
            </Badge>
          </span>
        </>
      }
      pager={
        raw.cursor || page.nextCursor ? (
          <Pagination
            label="Gateway pages"
            firstHref={raw.cursor ? gatewayListHref(raw, { cursor: null }) : null}
            nextHref={page.nextCursor ? gatewayListHref(raw, { cursor: page.nextCursor }) : null}
          />
        ) : null
      }
    >
      {page.items.length === 0 ? (
        <EmptyState
          title="No gateways"
          description="A gateway appears with its first heartbeat (PUT /v1/gateways/:id/heartbeat) and leaves when it deregisters."
        />
      ) : (
        <List label="Gateways">
          {page.items.map((gateway) => (
            <GatewayRow key={gateway.id} gateway={gateway} showProfile={!raw.profile} />
          ))}
        </List>
      )}
    </ResultsCard>
  );
}
