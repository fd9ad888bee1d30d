'use client';

import type { ImportJob } from '@statehouse/contracts';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { Alert, Badge, Card, LiveRegion } from '@/app/ui/common';
import { ImportProgressBar } from './ImportProgressBar';
import { ImportReportView } from './ImportReportView';
import './import.css';
import { formatBytes, PHASE_LABELS, STATE_LABELS, STATE_TONES } from './import-labels';

/**
 * One import run as it moves: its state, a progress bar fed by the run's event stream (proxied by
 * the dashboard with the session cookie), then the report. Without the stream (or JavaScript) the
 * page still shows the run as it was when rendered; reloading shows it as it is.
 */
export function ImportRun({ initial }: { initial: ImportJob }) {
  const router = useRouter();
  const [job, setJob] = useState(initial);
  const [streamProblem, setStreamProblem] = useState<string | null>(null);

  useEffect(() => {
    if (initial.state !== 'running') return;
    const source = new EventSource(`/admin/import/${encodeURIComponent(initial.id)}/events`);
    const update = (event: Event) => setJob(JSON.parse((event as MessageEvent<string>).data) as ImportJob);
    source.addEventListener('progress', update);
    source.addEventListener('done', (event) => {
      update(event);
      source.close();
      // The history table below is server-rendered: bring it up to date.
      router.refresh();
    });
    source.addEventListener('unavailable', (event) => {
      setStreamProblem((JSON.parse((event as MessageEvent<string>).data) as { detail: string }).detail);
      source.close();
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) setStreamProblem('Live progress is unavailable; reload to update.');
    };
    return () => source.close();
  }, [initial.id, initial.state, router]);

  const { progress } = job;
  const fraction =
    job.state !== 'running' && job.state !== 'interrupted'
      ? 1
      : progress.messagesTotal > 0
        ? progress.messagesDone / progress.messagesTotal
        : progress.sessionsTotal > 0
          ? progress.sessionsDone / progress.sessionsTotal
          : null;
  const title = `Import of ${job.fileName ?? 'an uploaded file'}`;
  return (
    <Card
      title={title}
      description={`${formatBytes(job.fileBytes)}${job.profile ? ` · profile for unassigned sessions: ${job.profile}` : ''} · on conflict: ${job.onConflict}`}
      actions={
        <span className="import-run__head">
          {job.dryRun ? <Badge tone="neutral">Dry run</Badge> : null}
          <Badge tone={STATE_TONES[job.state]} dot>
            <span data-testid="import-state">{STATE_LABELS[job.state]}</span>
          </Badge>
        </span>
      }
    >
      <ImportProgressBar
        testId="import-progress"
        label={job.state === 'running' ? PHASE_LABELS[progress.phase] : STATE_LABELS[job.state]}
        fraction={fraction}
        detail={`${progress.messagesDone.toLocaleString('en-US')} of ${progress.messagesTotal.toLocaleString('en-US')} messages, ${progress.sessionsDone.toLocaleString('en-US')} of ${progress.sessionsTotal.toLocaleString('en-US')} sessions`}
      />
      <LiveRegion>
        {job.state === 'succeeded' ? (
          <p data-testid="import-finished">
            {job.dryRun ? 'Dry run finished: nothing was written.' : 'Import finished.'} {job.report.sessions.created}{' '}
            sessions created, {job.report.sessions.updated} updated, {job.report.sessions.conflicts} conflicts.
          </p>
        ) : null}
        {job.state === 'failed' || job.state === 'interrupted' ? (
          <Alert
            tone={job.state === 'failed' ? 'danger' : 'warning'}
            title={`The import ${job.state === 'failed' ? 'failed' : 'was interrupted'}`}
          >
            <p data-testid="import-error">{job.error ?? 'No reason was recorded.'}</p>
          </Alert>
        ) : null}
      </LiveRegion>
      {streamProblem && job.state === 'running' ? (
        <Alert tone="warning" title="Live progress unavailable">
          <p>{streamProblem}</p>
        </Alert>
      ) : null}
      <ImportReportView job={job} />
    </Card>
  );
}
