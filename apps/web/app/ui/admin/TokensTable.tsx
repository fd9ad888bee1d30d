import type { ApiToken } from '@statehouse/contracts';
import { Badge, EmptyState, Table, Timestamp } from '@/app/ui/common';
import { describeProfileSet } from '@/lib/profile-set';
import { RevokeTokenForm } from './RevokeTokenForm';
import './admin.css';

/** Every API token (never its secret): who it acts as, when it was last used, revoked or not. */
export function TokensTable({ tokens }: { tokens: ApiToken[] }) {
  if (tokens.length === 0) {
    return <EmptyState title="No API tokens yet" description="Create one for each agent runtime or gateway." />;
  }
  return (
    <Table
      caption="API tokens"
      captionHidden
      className="tokens-table"
      head={['Name', 'Role', 'Profiles', 'Created', 'Last used', 'State']}
      rows={tokens.map((token) => [
        <span key="name" data-token-id={token.id}>
          {token.name}
        </span>,
        token.role === 'admin' ? 'Administrator' : 'Member',
        describeProfileSet(token.profiles),
        <Timestamp key="created" iso={token.createdAt} />,
        token.lastUsedAt ? <Timestamp key="used" iso={token.lastUsedAt} /> : 'never',
        token.revokedAt ? (
          <span key="state" className="tokens-table__revoked">
            <Badge tone="danger">Revoked</Badge> <Timestamp iso={token.revokedAt} />
          </span>
        ) : (
          <RevokeTokenForm key="state" tokenId={token.id} name={token.name} />
        ),
      ])}
    />
  );
}
