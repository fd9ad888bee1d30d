import { Alert } from '@/app/ui/common';
import { plural } from '@/lib/format';
import type { parseDeleted } from '@/lib/profile-results';

/** The outcome of a profile delete (from the URL it redirected to): what went, what was kept. */
export function ProfileDeletedAlert({ deleted }: { deleted: NonNullable<ReturnType<typeof parseDeleted>> }) {
  return (
    <Alert tone="success" role="status" title={`Deleted profile “${deleted.name}”`}>
      <p>
        {plural(deleted.counts.routes, 'route')} removed; {plural(deleted.counts.tokens, 'API token')} and{' '}
        {plural(deleted.counts.users, 'user')} no longer include it
        {deleted.counts.retentionPolicies > 0 ? '; its retention policy is gone' : ''}.{' '}
        {deleted.counts.sessions > 0
          ? `${plural(deleted.counts.sessions, 'session')} and ${plural(deleted.counts.messages, 'message')} were deleted, with a receipt.`
          : 'Its sessions were kept.'}
        {deleted.profileRemoved ? '' : ' The profile stays listed while kept sessions still belong to it.'}
      </p>
    </Alert>
  );
}
