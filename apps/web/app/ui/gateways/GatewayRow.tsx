import type { Gateway } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, ListItem, Timestamp } from '@/app/ui/common';
import { plural } from '@/lib/format';
import { hrefWith } from '@/lib/paths';
import './gateways.css';

/** One gateway process: who it is, whether it still heartbeats, and what it serves. */
export function GatewayRow({ gateway, showProfile }: { gateway: Gateway; showProfile: boolean }) {
  return (
    <ListItem className="gateway-row">
      <div className="gateway-row__main">
        <h2 className="gateway-row__heading" data-gateway-id={gateway.id}>
          <code>{gateway.id}</code>
        </h2>
        <p className="gateway-row__process">
          {gateway.host} · pid {gateway.pid} · started <Timestamp iso={gateway.startedAt} />
        </p>
      </div>
      <div className="gateway-row__state">
        {gateway.alive ? (
          <Badge tone="success" dot>
            Alive
          </Badge>
        ) : (
          <Badge tone="danger" dot title="No heartbeat within the liveness window: its open sessions are orphans">
            Silent
          </Badge>
        )}
        <span className="gateway-row__seen" data-last-seen={gateway.lastSeenAt}>
          last seen <Timestamp iso={gateway.lastSeenAt} />
        </span>
      </div>
      <div className="gateway-row__meta meta-row">
        {showProfile ? <Badge>{gateway.profile}</Badge> : null}
        <Link href={hrefWith('/sessions', { profile: gateway.profile, status: 'open' })}>
          {plural(gateway.openSessions, 'open session')}
        </Link>
        <span>{plural(gateway.heartbeats, 'heartbeat')}</span>
      </div>
    </ListItem>
  );
}
