import type { Metadata } from 'next';
import { ApiErrorAlert, Card, EmptyState, PageHeader } from '@/app/ui/common';
import { ReceiptSummary } from '@/app/ui/deletion/ReceiptSummary';
import { ProfileDeletedAlert } from '@/app/ui/profiles/ProfileDeletedAlert';
import { CreateProfileForm } from '@/app/ui/profiles/ProfileForms';
import { ProfileGrid } from '@/app/ui/profiles/ProfileGrid';
import { getMe, getReceipt, listProfiles, listRetentionPolicies } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import type { RawSearchParams } from '@/lib/paths';
import { parseDeleted } from '@/lib/profile-results';

export const metadata: Metadata = { title: 'Profiles' };

/** Every profile the signed-in principal can see, with its counts, last activity and retention. */
export default async function ProfilesPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const deleted = parseDeleted(await searchParams);
  const [me, profiles, policies, receipt] = await Promise.all([
    attempt(getMe),
    attempt(listProfiles),
    attempt(listRetentionPolicies),
    deleted?.receipt ? attempt(() => getReceipt(deleted.receipt as string)) : null,
  ]);
  const admin = me.ok && me.value.role === 'admin';

  return (
    <>
      <PageHeader
        title="Profiles"
        description="Tenant namespaces: every session, route and receipt belongs to exactly one profile."
      />

      {deleted ? <ProfileDeletedAlert deleted={deleted} /> : null}
      {receipt?.ok ? <ReceiptSummary receipt={receipt.value} /> : null}
      {receipt && !receipt.ok ? (
        <ApiErrorAlert error={receipt.error} title={`Receipt ${deleted?.receipt ?? ''} could not be loaded`} />
      ) : null}

      {admin ? (
        <Card title="Create a profile" description="A new, empty namespace. Administrators only.">
          <CreateProfileForm />
        </Card>
      ) : null}

      {!profiles.ok ? (
        <ApiErrorAlert error={profiles.error} title="Profiles could not be loaded" />
      ) : profiles.value.length === 0 ? (
        <Card>
          <EmptyState
            title="No profiles"
            description={admin ? 'Create the first one above.' : 'You have not been given access to any profile.'}
          />
        </Card>
      ) : (
        <ProfileGrid profiles={profiles.value} policies={policies} admin={admin} />
      )}
    </>
  );
}
