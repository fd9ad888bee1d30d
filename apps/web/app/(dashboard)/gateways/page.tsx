import type { Metadata } from 'next';
import { ApiErrorAlert, PageHeader, QueryIssuesAlert } from '@/app/ui/common';
import { GatewayResults } from '@/app/ui/gateways/GatewayResults';
import { listGateways } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { plural } from '@/lib/format';
import { parseGatewayListState } from '@/lib/gateway-list-state';
import type { RawSearchParams } from '@/lib/paths';

export const metadata: Metadata = { title: 'Gateways' };

/**
 * Gateway processes and their liveness (docs/domain.md §10): last heartbeat, alive or silent, the
 * open sessions each owns. Keyset paging by profile and id; the profile comes from the switcher.
 */
export default async function GatewaysPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseGatewayListState(await searchParams);
  const { raw } = state;
  const result = state.ok ? await attempt(() => listGateways(state.query)) : null;
  const windowSeconds = result?.ok ? result.value.livenessWindowSeconds : null;

  return (
    <>
      <PageHeader
        title="Gateways"
        description={
          <>
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
          </>
        }
      />

      {!state.ok ? (
        <QueryIssuesAlert
          title="This address is not valid"
          issues={state.issues}
          reset={{ href: '/gateways', label: 'All gateways' }}
        />
      ) : result && !result.ok ? (
        <ApiErrorAlert error={result.error} title="Gateways could not be loaded" />
      ) : result?.ok ? (
        <GatewayResults page={result.value} raw={raw} />
      ) : null}
    </>
  );
}
