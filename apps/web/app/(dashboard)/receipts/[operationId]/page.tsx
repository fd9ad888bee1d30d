import { IDENTITY_ROLES } from '@statehouse/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Badge, ButtonLink, Card, type DescriptionItem, DescriptionList, EmptyState, Table } from '@/app/ui/common';
import { ApiErrorAlert } from '@/app/ui/common/ApiErrorAlert';
import { Timestamp } from '@/app/ui/common/Timestamp';
import { RoleBadge } from '@/app/ui/deletion/RoleBadge';
import { EdgeChip } from '@/app/ui/lineage/EdgeChip';
import { ApiProblemError, getReceipt } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { formatNumber, humanize } from '@/lib/format';
import { receiptListHref } from '@/lib/receipt-list-state';

interface ReceiptPageProps {
  params: Promise<{ operationId: string }>;
}

function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export async function generateMetadata({ params }: ReceiptPageProps): Promise<Metadata> {
  return { title: `Receipt ${decodeParam((await params).operationId)}` };
}

/** One receipt: what was removed (identities and their roles), by whom, and its place in the chain. */
export default async function ReceiptDetailPage({ params }: ReceiptPageProps) {
  const operationId = decodeParam((await params).operationId);
  const result = /^[A-Za-z0-9._:-]{1,128}$/.test(operationId) ? await attempt(() => getReceipt(operationId)) : null;

  if (!result || (!result.ok && result.error instanceof ApiProblemError && result.error.status === 404)) {
    return (
      <>
        <Breadcrumbs label={operationId} />
        <Card>
          <EmptyState
            title="Receipt not found"
            description="No receipt has this operation id: it may have been reclaimed, or it belongs to a profile you cannot see."
            action={<ButtonLink href="/receipts">All receipts</ButtonLink>}
          />
        </Card>
      </>
    );
  }
  if (!result.ok) {
    return (
      <>
        <Breadcrumbs label={operationId} />
        <ApiErrorAlert error={result.error} title="This receipt could not be loaded" />
      </>
    );
  }

  const receipt = result.value;
  const overview: DescriptionItem[] = [
    { term: 'Sequence', detail: <span data-testid="receipt-sequence">#{receipt.sequence}</span> },
    { term: 'Operation id', detail: <code data-testid="receipt-operation-id">{receipt.operationId}</code> },
    { term: 'Recorded', detail: <Timestamp iso={receipt.createdAt} relative={false} /> },
    {
      term: 'Origin',
      hint: 'Which deletion path wrote it; authored by the server, never by the client',
      detail: humanize(receipt.origin),
    },
    {
      term: 'Intent',
      hint: 'Only explicit user deletions authorize external cleanup',
      detail: (
        <Badge tone={receipt.intent === 'explicit_user' ? 'accent' : 'neutral'}>{humanize(receipt.intent)}</Badge>
      ),
    },
    { term: 'Reason', hint: 'The reason observers were told', detail: humanize(receipt.reason) },
    { term: 'Profile', detail: receipt.profile },
    {
      term: 'Actor',
      detail: (
        <>
          {receipt.actor.kind} <code>{receipt.actor.id}</code>
        </>
      ),
    },
  ];
  const roleCounts = IDENTITY_ROLES.map((role) => ({
    role,
    count: receipt.identities.filter((identity) => identity.role === role).length,
  })).filter((entry) => entry.count > 0);

  return (
    <>
      <div>
        <Breadcrumbs label={`#${receipt.sequence}`} />
        <div className="page-header">
          <div>
            <h1 className="page-header__title">Receipt #{receipt.sequence}</h1>
            <p className="page-header__description">
              {humanize(receipt.origin)} in profile <strong>{receipt.profile}</strong>,{' '}
              <Timestamp iso={receipt.createdAt} />.
            </p>
          </div>
          <div className="page-header__actions">
            <ButtonLink href={receiptListHref({}, { after: String(Math.max(0, receipt.sequence - 1)) })} size="sm">
              Replay from here
            </ButtonLink>
          </div>
        </div>
      </div>

      <div className="stat-strip">
        <Stat label="sessions removed" value={receipt.counts.sessions} />
        <Stat label="messages removed" value={receipt.counts.messages} />
        <Stat label="routes removed" value={receipt.counts.routes} />
      </div>

      <div className="receipt-layout">
        <Card
          title="Removed sessions"
          description={
            <span className="role-counts">
              {roleCounts.map((entry) => (
                <span key={entry.role}>
                  {entry.count} <RoleBadge role={entry.role} />
                </span>
              ))}
            </span>
          }
          className="receipt-layout__identities"
        >
          <Table
            caption="Identities of the removed sessions"
            captionHidden
            className="identities-table"
            head={['Session', 'Role', 'Lineage', 'Source', 'Session key', 'Chat']}
            rows={receipt.identities.map((identity) => [
              <code key="id" data-identity-id={identity.id}>
                {identity.id}
              </code>,
              <RoleBadge key="role" role={identity.role} />,
              identity.lineageKind ? (
                <span key="lineage" className="identities-table__lineage">
                  <EdgeChip kind={identity.lineageKind} />
                  {identity.parentSessionId ? (
                    <>
                      {' '}
                      of <code>{identity.parentSessionId}</code>
                    </>
                  ) : null}
                </span>
              ) : (
                <span key="lineage" className="text-subtle">
                  root
                </span>
              ),
              identity.createdSource === identity.source ? (
                identity.source
              ) : (
                <span key="source">
                  {identity.createdSource} → {identity.source}
                </span>
              ),
              identity.sessionKey ? (
                <code key="key" className="identities-table__key">
                  {identity.sessionKey}
                </code>
              ) : (
                <span key="key" className="text-subtle">
                  —
                </span>
              ),
              identity.chatId ? (
                <span key="chat">
                  {identity.chatType ?? 'chat'} <code>{identity.chatId}</code>
                  {identity.threadId ? (
                    <>
                      {' '}
                      thread <code>{identity.threadId}</code>
                    </>
                  ) : null}
                </span>
              ) : (
                <span key="chat" className="text-subtle">
                  —
                </span>
              ),
            ])}
          />
          <p className="card-note">
            No message text, titles or model settings are kept: a receipt proves <em>what</em> was removed, not what it
            said. The sessions themselves are gone.
          </p>
        </Card>
        <div className="receipt-layout__side">
          <Card title="Operation">
            <DescriptionList items={overview} />
          </Card>
          <Card title="Hash chain" description="hash = sha256(prevHash + canonical JSON of the receipt)">
            <DescriptionList
              items={[
                { term: 'Previous hash', detail: <code className="hash">{receipt.prevHash}</code> },
                { term: 'Hash', detail: <code className="hash">{receipt.hash}</code> },
              ]}
            />
            <p className="card-note">
              <Link href="/receipts?verify=1">Verify the whole chain</Link> (administrators)
            </p>
          </Card>
        </div>
      </div>
    </>
  );
}

function Breadcrumbs({ label }: { label: string }) {
  return (
    <nav aria-label="Breadcrumb">
      <ol className="breadcrumbs">
        <li>
          <Link href="/receipts">Receipts</Link>
        </li>
        <li aria-current="page">{label}</li>
      </ol>
    </nav>
  );
}

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <div className="stat">
      <span className="stat__value">{formatNumber(value)}</span>
      <span className="stat__label">{label}</span>
    </div>
  );
}
