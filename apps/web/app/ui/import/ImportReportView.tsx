import type { ImportJob } from '@statehouse/contracts';
import Link from 'next/link';
import { sessionHref } from '@/lib/paths';
import './import.css';
import { splitWarnings } from './import-labels';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * What an import did (or has done so far): sessions and messages by outcome, typed edges, routes,
 * the runtime ledgers (delegations, delivery obligations), links to the conversations it brought in, and every conflict and warning in the importer's words.
 */
export function ImportReportView({ job }: { job: ImportJob }) {
  const { report } = job;
  const { conflicts, others } = splitWarnings(report.warnings);
  const dry = job.dryRun ? ' (would be)' : '';
  return (
    <div className="import-report" data-testid="import-report">
      <dl className="import-report__counts">
        <div className="import-report__count">
          <dt>Sessions created{dry}</dt>
          <dd data-testid="import-sessions-created">{count(report.sessions.created)}</dd>
        </div>
        <div className="import-report__count">
          <dt>Sessions updated{dry}</dt>
          <dd>{count(report.sessions.updated)}</dd>
        </div>
        <div className="import-report__count">
          <dt>Sessions unchanged or skipped</dt>
          <dd>{count(report.sessions.skipped)}</dd>
        </div>
        <div className="import-report__count">
          <dt>Conflicts</dt>
          <dd data-testid="import-conflicts">{count(report.sessions.conflicts)}</dd>
        </div>
        <div className="import-report__count">
          <dt>Messages created{dry}</dt>
          <dd>
            <span data-testid="import-messages-created">{count(report.messages.created)}</span>
            <small>{count(report.messages.skipped)} already here or skipped</small>
          </dd>
        </div>
        <div className="import-report__count">
          <dt>Lineage edges{dry}</dt>
          <dd>
            {count(Object.values(report.lineage).reduce((sum, n) => sum + n, 0))}
            <small>
              {report.lineage.compression} compression · {report.lineage.branch} branch · {report.lineage.reset} reset ·{' '}
              {report.lineage.delegate} delegate
            </small>
          </dd>
        </div>
        <div className="import-report__count">
          <dt>Routes{dry}</dt>
          <dd>{count(report.routes)}</dd>
        </div>
        {report.delegations ? (
          <div className="import-report__count">
            <dt>Async delegations{dry}</dt>
            <dd>
              {count(report.delegations.created)}
              <small>{count(report.delegations.skipped)} already here or not mappable</small>
            </dd>
          </div>
        ) : null}
        {report.deliveries ? (
          <div className="import-report__count">
            <dt>Delivery obligations{dry}</dt>
            <dd>
              {count(report.deliveries.created)}
              <small>{count(report.deliveries.skipped)} already here or not mappable</small>
            </dd>
          </div>
        ) : null}
      </dl>

      {job.conversations.length > 0 && !job.dryRun ? (
        <section className="import-report__section" aria-labelledby={`${job.id}-conversations`}>
          <h3 id={`${job.id}-conversations`}>Imported conversations</h3>
          <ul className="import-report__list import-report__list--columns">
            {job.conversations.map((conversation) => (
              <li key={conversation.id}>
                <Link href={sessionHref(conversation.id)}>{conversation.title ?? conversation.id}</Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {conflicts.length > 0 ? (
        <section className="import-report__section" aria-labelledby={`${job.id}-conflicts`}>
          <h3 id={`${job.id}-conflicts`}>Conflicts ({conflicts.length})</h3>
          <ul className="import-report__list" data-testid="import-conflict-list">
            {conflicts.map((line) => (
              <li key={line} className="import-report__warning">
                {line.slice('conflict: '.length)}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {others.length > 0 ? (
        <section className="import-report__section" aria-labelledby={`${job.id}-warnings`}>
          <h3 id={`${job.id}-warnings`}>Warnings ({others.length})</h3>
          <ul className="import-report__list" data-testid="import-warning-list">
            {others.map((line) => (
              <li key={line} className="import-report__warning">
                {line}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
