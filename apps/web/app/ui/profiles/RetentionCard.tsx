import type { RetentionPolicy } from '@statehouse/contracts';
import { ApiErrorAlert, Card } from '@/app/ui/common';
import type { Attempt } from '@/lib/attempt';
import { retentionDaysOf } from '@/lib/profile-results';
import { RetentionForm } from './ProfileForms';

/** How long ended sessions of the profile are kept (administrators). */
export function RetentionCard({ name, policies }: { name: string; policies: Attempt<RetentionPolicy[]> }) {
  return (
    <Card
      title="Retention"
      description="Ended sessions older than this are pruned by the retention job, whole lineages at a time, with receipts."
    >
      {policies.ok ? (
        <RetentionForm profile={name} retentionDays={retentionDaysOf(policies.value, name)} />
      ) : (
        <ApiErrorAlert error={policies.error} title="Retention policies could not be loaded" />
      )}
    </Card>
  );
}
