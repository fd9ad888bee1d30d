import { ListGatewaysQuerySchema } from '@statehouse/contracts';
import type { Metadata } from 'next';
import { ApiErrorAlert } from '../../../components/ApiErrorAlert';
import { GatewayRow } from '../../../components/gateways/GatewayRow';
import { Alert, Badge, ButtonLink, Card, EmptyState, List, Pagination } from '../../../components/ui';
import { listGateways } from '../../../lib/api';
import { attempt } from '../../../lib/attempt';
import { plural } from '../../../lib/format';
import { firstParam, hrefWith, type RawSearchParams } from '../../../lib/paths';

export const metadata: Metadata = { title: 'Gateways' };

const GATEWAY_KEYS = ['profile', 'limit', 'cursor'] as const;
type GatewayRaw = Partial<Record<(typeof GATEWAY_KEYS)[number], string>>;

const gatewaysHref = (raw: GatewayRaw, changes: Partial<Record<keyof GatewayRaw, string | null>> = {}) =>
  hrefWith('/gateways', { ...raw, ...changes });

/**
 * Gateway processes and their liveness (docs/domain.md §10): last heartbeat, alive or silent, the
 * open sessions each owns. Keyset paging by profile and id; the profile comes from the switcher.
 */
export default async function GatewaysPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const raw: GatewayRaw = {};
  for (const key of GATEWAY_KEYS) {
    const value = firstParam(params[key])?.trim();
    if (value) raw[key] = value;
  }
  const parsed = ListGatewaysQuerySchema.safeParse(raw);
  const result = parsed.success ? await attempt(() => listGateways(parsed.data)) : null;
  const windowSeconds = result?.ok ? result.value.livenessWindowSeconds : null;

  return (
    <>
      <div className="page-header">
        <div>
          <h1 className="page-header__title">Gateways</h1>
          <p className="page-header__description">
            Gateway processes that heartbeat into Statehouse
            {raw.profile ? (
              <>
                {' '}
                in profile <strong>{raw.profile}</strong>
              </>
            ) : (
              ', across your profiles'
            )}
            .{' '}
            {windowSeconds !== null
              ? `A gateway silent for more than ${plural(windowSeconds, 'second')} is down: the sweep ends its open sessions with a recoverable reason, and the next message on each chat revives them.`
              : null}
          </p>
        </div>
      </div>

      {!parsed.success ? (
        <Alert
          tone="danger"
          role="alert"
          title="This address is not valid"
          actions={
            <ButtonLink href="/gateways" size="sm">
              All gateways
            </ButtonLink>
          }
        >
          <p>{parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}</p>
        </Alert>
      ) : result && !result.ok ? (
        <ApiErrorAlert error={result.error} title="Gateways could not be loaded" />
      ) : result?.ok ? (
        <Card className="results-card" padded>
          <div className="results-toolbar">
            <span>
              {plural(result.value.items.length, 'gateway')} on this page
              {raw.cursor ? ' (continued)' : ''}
            </span>
            <span className="route-legend">
              <Badge tone="success" dot>
                alive
              </Badge>
              <Badge tone="danger" dot>
                silent
              </Badge>
            </span>
          </div>
          {result.value.items.length === 0 ? (
            <EmptyState
              title="No gateways"
              description="A gateway appears with its first heartbeat (PUT /v1/gateways/:id/heartbeat) and leaves when it deregisters."
            />
          ) : (
            <List label="Gateways">
              {result.value.items.map((gateway) => (
                <GatewayRow key={gateway.id} gateway={gateway} showProfile={!raw.profile} />
              ))}
            </List>
          )}
          {raw.cursor || result.value.nextCursor ? (
            <div className="results-footer">
              <Pagination
                label="Gateway pages"
                firstHref={raw.cursor ? gatewaysHref(raw, { cursor: null }) : null}
                nextHref={result.value.nextCursor ? gatewaysHref(raw, { cursor: result.value.nextCursor }) : null}
              />
            </div>
          ) : null}
        </Card>
      ) : null}
    </>
  );
}
