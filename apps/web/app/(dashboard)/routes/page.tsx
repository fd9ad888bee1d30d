import type { Metadata } from 'next';
import { Alert, ApiErrorAlert, ButtonLink, PageHeader, QueryIssuesAlert } from '@/app/ui/common';
import { RouteResults } from '@/app/ui/routes/RouteResults';
import { listRoutes } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import type { RawSearchParams } from '@/lib/paths';
import { parseRouteListState, routeListHref } from '@/lib/route-list-state';

export const metadata: Metadata = { title: 'Routes' };

/**
 * The gateway routing index (docs/domain.md §2.4): which session each chat key resolves to. Keyset paging by
 * profile and key; the profile comes from the header's switcher.
 */
export default async function RoutesPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseRouteListState(await searchParams);
  const { raw } = state;
  const result = state.ok ? await attempt(() => listRoutes(state.query)) : null;

  return (
    <>
      <PageHeader
        title="Routes"
        description={
          <>
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
          </>
        }
      />

      {raw.sessionId ? (
        <Alert
          tone="info"
          title={
            <>
              Routes to session <code>{raw.sessionId}</code>
            </>
          }
          actions={
            <ButtonLink href={routeListHref(raw, { sessionId: null, cursor: null })} size="sm">
              Show all routes
            </ButtonLink>
          }
        />
      ) : null}

      {!state.ok ? (
        <QueryIssuesAlert
          title="This address is not valid"
          issues={state.issues}
          reset={{ href: '/routes', label: 'All routes' }}
        />
      ) : result && !result.ok ? (
        <ApiErrorAlert error={result.error} title="Routes could not be loaded" />
      ) : result?.ok ? (
        <RouteResults page={result.value} raw={raw} />
      ) : null}
    </>
  );
}
