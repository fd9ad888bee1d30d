import type { ImportJob } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, Card, EmptyState, Table, Timestamp } from '@/app/ui/common';
import { hrefWith } from '@/lib/paths';
import { STATE_LABELS, STATE_TONES } from './import-labels';

/** The store's recent import runs (any replica's), newest first, each opening its report. */
export function ImportHistory({ jobs }: { jobs: readonly ImportJob[] }) {
  return (
    <Card title="Recent imports" padded={jobs.length === 0}>
      {jobs.length === 0 ? (
        <EmptyState title="No imports yet" description="Runs of the CLI and of this page are listed here." />
      ) : (
        <Table
          caption="Recent imports"
          captionHidden
          head={['Started', 'File', 'State', 'Sessions created', 'Updated', 'Conflicts', '']}
          numericColumns={[3, 4, 5]}
          rows={jobs.map((job) => [
            <Timestamp key="at" iso={job.createdAt} />,
            <span key="file">
              {job.fileName ?? '—'}
              {job.dryRun ? ' (dry run)' : ''}
            </span>,
            <Badge key="state" tone={STATE_TONES[job.state]}>
              {STATE_LABELS[job.state]}
            </Badge>,
            job.report.sessions.created,
            job.report.sessions.updated,
            job.report.sessions.conflicts,
            <Link key="open" href={hrefWith('/admin/import', { run: job.id })}>
              Report<span className="visually-hidden"> of the import started {job.createdAt}</span>
            </Link>,
          ])}
        />
      )}
    </Card>
  );
}
