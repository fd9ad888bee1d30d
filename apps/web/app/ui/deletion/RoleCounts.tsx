import { IDENTITY_ROLES, type ReceiptIdentity } from '@statehouse/contracts';
import { RoleBadge } from './RoleBadge';
import './deletion.css';

/** How many removed sessions had each role ("2 selected · 3 chain member"), roles without any left out. */
export function RoleCounts({ identities }: { identities: Pick<ReceiptIdentity, 'role'>[] }) {
  const roles = IDENTITY_ROLES.map((role) => ({
    role,
    count: identities.filter((identity) => identity.role === role).length,
  })).filter((entry) => entry.count > 0);
  return (
    <span className="role-counts">
      {roles.map((entry) => (
        <span key={entry.role}>
          {entry.count} <RoleBadge role={entry.role} />
        </span>
      ))}
    </span>
  );
}
