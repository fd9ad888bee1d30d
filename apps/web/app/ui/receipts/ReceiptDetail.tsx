import type { DeletionReceipt } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, Card, type DescriptionItem, DescriptionList, Timestamp } from '@/app/ui/common';
import { type ActorNames, actorLabel, loadActorNames } from '@/lib/actors';
import { IdentitiesCard } from './IdentitiesCard';
import './receipts.css';
import { deletionReasonLabel, intentLabel, originLabel } from '@/lib/wording';

/** A receipt's body: who was removed (wide) beside the operation and its hash-chain links. */
export async function ReceiptDetail({ receipt }: { receipt: DeletionReceipt }) {
  const actors = await loadActorNames();
  return (
    <div className="receipt-layout">
      <IdentitiesCard receipt={receipt} />
      <ReceiptFacts receipt={receipt} actors={actors} />
    </div>
  );
}

/** The operation behind a receipt (when, which path, why, by whom) and its links in the hash chain. */
function ReceiptFacts({ receipt, actors }: { receipt: DeletionReceipt; actors: ActorNames }) {
  const overview: DescriptionItem[] = [
    { term: 'Sequence', detail: <span data-testid="receipt-sequence">#{receipt.sequence}</span> },
    { term: 'Operation id', detail: <code data-testid="receipt-operation-id">{receipt.operationId}</code> },
    { term: 'Recorded', detail: <Timestamp iso={receipt.createdAt} relative={false} /> },
    {
      term: 'Origin',
      hint: 'Which deletion path wrote it; authored by the server, never by the client',
      detail: <span title={receipt.origin}>{originLabel(receipt.origin)}</span>,
    },
    {
      term: 'Intent',
      hint: 'Only explicit user deletions authorize external cleanup',
      detail: (
        <Badge tone={receipt.intent === 'explicit_user' ? 'accent' : 'neutral'}>
          <span title={receipt.intent}>{intentLabel(receipt.intent)}</span>
        </Badge>
      ),
    },
    {
      term: 'Reason',
      hint: 'The reason observers were told',
      detail: <span title={receipt.reason}>{deletionReasonLabel(receipt.reason)}</span>,
    },
    { term: 'Profile', detail: receipt.profile },
    {
      term: 'Actor',
      hint: `${receipt.actor.kind} ${receipt.actor.id}`,
      detail: actorLabel(receipt.actor.kind, receipt.actor.id, actors),
    },
  ];
  return (
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
  );
}
