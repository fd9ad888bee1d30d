import type { ReceiptIdentity } from '@statehouse/contracts';
import { Badge } from '@/app/ui/common';
import { ROLE_LABELS } from '@/lib/deletion';

/** Why a session was (or will be) deleted: selected, chain member or delegate cascade. */
export function RoleBadge({ role }: { role: ReceiptIdentity['role'] }) {
  const tone = role === 'selected' ? 'danger' : role === 'delegate_cascade' ? 'warning' : 'info';
  return (
    <Badge tone={tone} title={ROLE_LABELS[role].description}>
      <span data-identity-role={role}>{ROLE_LABELS[role].label}</span>
    </Badge>
  );
}
