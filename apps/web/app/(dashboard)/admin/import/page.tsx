import type { Metadata } from 'next';
import { ApiErrorAlert } from '../../../../components/ApiErrorAlert';
import { Alert, Card } from '../../../../components/ui';
import { getImport, getMe, listImports } from '../../../../lib/api';
import { attempt } from '../../../../lib/attempt';
import { firstParam, type RawSearchParams } from '../../../../lib/paths';
import { ImportHistory } from '../../../ui/import/ImportHistory';
import { ImportRun } from '../../../ui/import/ImportRun';
import { ImportUploadForm } from '../../../ui/import/ImportUploadForm';

export const metadata: Metadata = { title: 'Import' };

/**
 * Import a Hermes Agent state.db (administrators): upload with a progress bar, then the run's
 * progress and report (`?run=<id>` keeps the run in the URL), and the store's recent imports.
 */
export default async function ImportPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const runId = firstParam((await searchParams).run);
  const me = await attempt(getMe);
  const header = (
    <div className="page-header">
      <div>
        <h1 className="page-header__title">Import</h1>
        <p className="page-header__description">
          Bring conversations from a Hermes Agent <code>state.db</code>: sessions, messages, lineage, routes and usage.
          Importing the same file again creates nothing; a newer copy adds only what is new.
        </p>
      </div>
    </div>
  );
  if (me.ok && me.value.role !== 'admin') {
    return (
      <>
        {header}
        <Alert tone="warning" role="alert" title="Administrators only">
          <p>Importing writes into every profile, so only administrators can do it.</p>
        </Alert>
      </>
    );
  }
  const [run, history] = await Promise.all([
    runId ? attempt(() => getImport(runId)) : null,
    attempt(() => listImports(10)),
  ]);
  return (
    <>
      {header}
      {run?.ok ? <ImportRun key={run.value.id} initial={run.value} /> : null}
      {run && !run.ok ? <ApiErrorAlert error={run.error} title="This import could not be loaded" /> : null}
      <Card
        title="Import a Hermes state.db"
        description="The file is uploaded to the API and imported in the background; one import runs at a time."
      >
        <ImportUploadForm />
        <noscript>
          <p>
            Uploading needs JavaScript. Without it, import from a shell: <code>npm run import -- hermes --db PATH</code>
            .
          </p>
        </noscript>
      </Card>
      {history.ok ? (
        <ImportHistory jobs={history.value.items} />
      ) : (
        <ApiErrorAlert error={history.error} title="Recent imports could not be loaded" />
      )}
    </>
  );
}
