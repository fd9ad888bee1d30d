import type { DeletionReceipt, ReceiptIdentity } from '@statehouse/contracts';
import { Card, Table } from '@/app/ui/common';
import { RoleBadge } from '@/app/ui/deletion/RoleBadge';
import { RoleCounts } from '@/app/ui/deletion/RoleCounts';
import { EdgeChip } from '@/app/ui/lineage/EdgeChip';
import './receipts.css';

const none = (key: string) => (
  <span key={key} className="text-subtle">
    —
  </span>
);

/** Who was removed: each session's identity (ids, lineage, routing) and role — never its content. */
export function IdentitiesCard({ receipt }: { receipt: DeletionReceipt }) {
  return (
    <Card
      title="Removed sessions"
      description={<RoleCounts identities={receipt.identities} />}
      className="receipt-layout__identities"
    >
      <Table
        caption="Identities of the removed sessions"
        captionHidden
        className="identities-table"
        head={['Session', 'Role', 'Lineage', 'Source', 'Session key', 'Chat']}
        rows={receipt.identities.map(identityRow)}
      />
      <p className="card-note">
        No message text, titles or model settings are kept: a receipt proves <em>what</em> was removed, not what it
        said. The sessions themselves are gone.
      </p>
    </Card>
  );
}

function identityRow(identity: ReceiptIdentity) {
  return [
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
      none('key')
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
      none('chat')
    ),
  ];
}
