import { ApiErrorAlert, PageHeader } from '@/app/ui/common';
import { ImportHistory } from '@/app/ui/import/ImportHistory';
import { ImportRun } from '@/app/ui/import/ImportRun';
import { ImportUploadCard } from '@/app/ui/import/ImportUploadCard';
import { adminTitle } from '@/lib/admin';
import { getImport, listImports } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { firstParam, type RawSearchParams } from '@/lib/paths';

export const generateMetadata = adminTitle('Import');

/**
 * Import a Hermes Agent state.db (administrators only: admin/layout.tsx answers members with a 404): upload with a progress bar, then the run's
 * progress and report (`?run=<id>` keeps the run in the URL), and the store's recent imports.
 */
export default async function ImportPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const runId = firstParam((await searchParams).run);
  const header = (
    <PageHeader
      title="Import"
      description={
        <>
          Bring conversations from a Hermes Agent <code>state.db</code>: sessions, messages, lineage, routes and usage.
          Importing the same file again creates nothing; a newer copy adds only what is new.
        </>
      }
    />
  );
  const [run, history] = await Promise.all([
    runId ? attempt(() => getImport(runId)) : null,
    attempt(() => listImports(10)),
  ]);
  return (
    <>
      {header}
      {run?.ok ? <ImportRun key={run.value.id} initial={run.value} /> : null}
      {run && !run.ok ? <ApiErrorAlert error={run.error} title="This import could not be loaded" /> : null}
      <ImportUploadCard />
      {history.ok ? (
        <ImportHistory jobs={history.value.items} />
      ) : (
        <ApiErrorAlert error={history.error} title="Recent imports could not be loaded" />
      )}
    </>
  );
}
