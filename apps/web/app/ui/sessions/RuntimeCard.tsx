import type { Delegation, DelegationState, Session } from '@statehouse/contracts';
import Link from 'next/link';
import {
  ApiErrorAlert,
  Badge,
  type BadgeTone,
  Card,
  type DescriptionItem,
  DescriptionList,
  Timestamp,
} from '@/app/ui/common';
import type { SessionDelegations } from '@/lib/api';
import type { Attempt } from '@/lib/attempt';
import { sessionHref } from '@/lib/paths';
import './runtime.css';

const STATE_TONES: Record<DelegationState, BadgeTone> = {
  running: 'info',
  done: 'success',
  failed: 'danger',
  delivered: 'neutral',
  abandoned: 'warning',
};

const SUMMARY_SHOWN = 240;

function excerpt(text: string): string {
  return text.length > SUMMARY_SHOWN ? `${text.slice(0, SUMMARY_SHOWN)}…` : text;
}

function DelegationItem({ delegation, linkTo }: { delegation: Delegation; linkTo: 'child' | 'origin' }) {
  const other = linkTo === 'child' ? delegation.childSessionId : delegation.originSessionId;
  return (
    <li className="runtime-delegation">
      <span className="runtime-delegation__head meta-row">
        <code className="runtime-delegation__id">{delegation.id}</code>
        <Badge tone={STATE_TONES[delegation.state]} dot>
          {delegation.state}
        </Badge>
        {delegation.due ? (
          <Badge tone="warning" title="Finished and not yet delivered: its origin is to be woken">
            Due
          </Badge>
        ) : null}
        {delegation.claim ? <Badge tone="info">Claimed by {delegation.claim.holder}</Badge> : null}
      </span>
      {delegation.resultSummary ? (
        <p className="runtime-delegation__text">{excerpt(delegation.resultSummary)}</p>
      ) : null}
      {delegation.error ? <p className="runtime-delegation__text text-danger">{excerpt(delegation.error)}</p> : null}
      <span className="runtime-delegation__meta meta-row">
        {other ? (
          <span>
            {linkTo === 'child' ? 'Sub-agent' : 'Works for'} <Link href={sessionHref(other)}>{other}</Link>
          </span>
        ) : null}
        <span>
          started <Timestamp iso={delegation.createdAt} />
        </span>
        {delegation.abandonedReason ? <span>{delegation.abandonedReason.replaceAll('_', ' ')}</span> : null}
      </span>
    </li>
  );
}

/**
 * What the gateway runtime keeps on the session (docs/domain.md §2.2.11–§2.2.13, §12): the tools it
 * was offered, its model configuration, the compression deadline, and async delegations.
 */
export function RuntimeCard({
  session,
  delegations,
  now,
}: {
  session: Session;
  delegations: Attempt<SessionDelegations>;
  /** Server time of the render: whether the compression deadline is still ahead. */
  now: number;
}) {
  const deadlineAhead = session.compressionRetryAfter !== null && Date.parse(session.compressionRetryAfter) > now;
  const configKeys = session.modelConfig ? Object.keys(session.modelConfig).length : 0;
  const compression: DescriptionItem[] = [
    {
      term: 'Retry after',
      hint: 'The runtime does not compress this session again before this time (anti-thrash)',
      detail: session.compressionRetryAfter ? (
        <span className="meta-row">
          <Timestamp iso={session.compressionRetryAfter} relative={false} />
          <Badge tone={deadlineAhead ? 'warning' : 'neutral'}>{deadlineAhead ? 'In effect' : 'Passed'}</Badge>
        </span>
      ) : (
        <span className="text-muted">No deadline</span>
      ),
    },
    ...(session.compressionRetryReason ? [{ term: 'Reason', detail: session.compressionRetryReason }] : []),
  ];
  return (
    <Card title="Runtime" headingLevel={2}>
      <div className="metadata-section">
        <h3 className="metadata-section__title">Tools offered</h3>
        {session.toolNames === null ? (
          <p className="runtime-card__empty">Not pinned by the runtime.</p>
        ) : session.toolNames.length === 0 ? (
          <p className="runtime-card__empty">No tools were offered.</p>
        ) : (
          <ul className="runtime-tools" aria-label="Tools offered">
            {session.toolNames.map((name) => (
              <li key={name}>
                <code>{name}</code>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="metadata-section">
        <h3 className="metadata-section__title">Model configuration</h3>
        {session.modelConfig === null ? (
          <p className="runtime-card__empty">None recorded.</p>
        ) : (
          <details className="runtime-config">
            <summary>
              {configKeys} {configKeys === 1 ? 'setting' : 'settings'}
            </summary>
            <pre className="runtime-config__json">{JSON.stringify(session.modelConfig, null, 2)}</pre>
          </details>
        )}
      </div>
      <div className="metadata-section">
        <h3 className="metadata-section__title">Compression</h3>
        <DescriptionList items={compression} />
      </div>
      <div className="metadata-section">
        <h3 className="metadata-section__title">Async delegations</h3>
        {!delegations.ok ? (
          <ApiErrorAlert error={delegations.error} title="Delegations could not be loaded" />
        ) : (
          <>
            {delegations.value.started.length === 0 ? (
              <p className="runtime-card__empty">This session started no async sub-agent work.</p>
            ) : (
              <ul className="runtime-delegations" aria-label="Delegations this session started">
                {delegations.value.started.map((delegation) => (
                  <DelegationItem key={delegation.id} delegation={delegation} linkTo="child" />
                ))}
              </ul>
            )}
            {delegations.value.more ? (
              <p className="runtime-card__empty">Only the newest {delegations.value.started.length} are shown.</p>
            ) : null}
            {delegations.value.runsFor.length > 0 ? (
              <ul className="runtime-delegations" aria-label="Delegations this session works on">
                {delegations.value.runsFor.map((delegation) => (
                  <DelegationItem key={delegation.id} delegation={delegation} linkTo="origin" />
                ))}
              </ul>
            ) : null}
          </>
        )}
      </div>
    </Card>
  );
}
