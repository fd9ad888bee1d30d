import type { Metadata } from 'next';
import Link from 'next/link';
import { Alert, ApiErrorAlert, Badge, Card, EmptyState, Timestamp } from '@/app/ui/common';
import { ReceiptSummary } from '@/app/ui/deletion/ReceiptSummary';
import { CreateProfileForm } from '@/app/ui/profiles/ProfileForms';
import { getMe, getReceipt, listProfiles, listRetentionPolicies } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { formatNumber, plural } from '@/lib/format';
import { hrefWith, profileHref, type RawSearchParams } from '@/lib/paths';
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
  const retention = new Map(policies.ok ? policies.value.map((policy) => [policy.profile, policy.retentionDays]) : []);

  return (
    <>
      <div className="page-header">
        <div>
          <h1 className="page-header__title">Profiles</h1>
          <p className="page-header__description">
            Tenant namespaces: every session, route and receipt belongs to exactly one profile.
          </p>
        </div>
      </div>

      {deleted ? (
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
      ) : null}
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
        <ul className="profile-grid" aria-label="Profiles">
          {profiles.value.map((profile) => {
            const days = retention.get(profile.name);
            return (
              <li key={profile.name} className="profile-card" data-profile={profile.name}>
                <div className="profile-card__head">
                  <h2 className="profile-card__name">
                    <Link href={profileHref(profile.name)} className="profile-card__link">
                      {profile.name}
                    </Link>
                  </h2>
                  {policies.ok ? (
                    <Badge tone={days === null || days === undefined ? 'neutral' : 'info'} title="Retention policy">
                      {days === null || days === undefined ? 'kept forever' : `retention ${days} d`}
                    </Badge>
                  ) : null}
                </div>
                <dl className="profile-card__stats">
                  <div>
                    <dt>Sessions</dt>
                    <dd>{formatNumber(profile.sessionCount)}</dd>
                  </div>
                  <div>
                    <dt>Messages</dt>
                    <dd>{formatNumber(profile.messageCount)}</dd>
                  </div>
                  <div>
                    <dt>Last activity</dt>
                    <dd>{profile.lastActiveAt ? <Timestamp iso={profile.lastActiveAt} /> : 'never'}</dd>
                  </div>
                </dl>
                <div className="profile-card__links">
                  <Link href={hrefWith('/sessions', { profile: profile.name })}>Sessions</Link>
                  <Link href={hrefWith('/routes', { profile: profile.name })}>Routes</Link>
                  {admin ? <Link href={hrefWith('/receipts', { profile: profile.name })}>Receipts</Link> : null}
                  <Link href={profileHref(profile.name)} className="profile-card__manage">
                    {admin ? 'Manage →' : 'Details →'}
                  </Link>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
