import { ProfileNameSchema } from '@statehouse/contracts';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { Alert, ApiErrorAlert, ButtonLink, PageHeader, Stat, StatStrip, Timestamp } from '@/app/ui/common';
import { LabelManager } from '@/app/ui/labels/LabelManager';
import { ProfileAdmin } from '@/app/ui/profiles/ProfileAdmin';
import { RenamedAlert } from '@/app/ui/profiles/RenamedAlert';
import { deleteProfile, getMe, listLabels, listProfiles, listRetentionPolicies } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { formatNumber } from '@/lib/format';
import { firstParam, hrefWith, type RawSearchParams } from '@/lib/paths';
import { parseRenamed, retentionDaysOf } from '@/lib/profile-results';
import { countRoutes } from '@/lib/routes';

interface ProfilePageProps {
  params: Promise<{ name: string }>;
  searchParams: Promise<RawSearchParams>;
}

export async function generateMetadata({ params }: ProfilePageProps): Promise<Metadata> {
  const name = (await params).name;
  const profiles = await attempt(listProfiles);
  const known = !profiles.ok || profiles.value.some((profile) => profile.name === name);
  return { title: known ? `Profile ${name}` : 'Profile not found' };
}

/** One profile: its numbers, and for administrators retention, rename (with a preview) and delete. */
export default async function ProfilePage({ params, searchParams }: ProfilePageProps) {
  const parsedName = ProfileNameSchema.safeParse((await params).name);
  const query = await searchParams;
  const renamed = parseRenamed(query);
  const proposed = firstParam(query.rename)?.trim() ?? '';
  if (!parsedName.success) notFound();
  const name = parsedName.data;

  const [me, profiles, policies, routes, labels] = await Promise.all([
    attempt(getMe),
    attempt(listProfiles),
    attempt(listRetentionPolicies),
    attempt(() => countRoutes(name)),
    attempt(() => listLabels(name)),
  ]);
  const admin = me.ok && me.value.role === 'admin';
  if (!profiles.ok) return <ApiErrorAlert error={profiles.error} title="Profiles could not be loaded" />;
  const profile = profiles.value.find((entry) => entry.name === name);
  if (!profile) notFound();

  const [keepRun, deleteRun] = admin
    ? await Promise.all([
        attempt(() => deleteProfile(name, { deleteSessions: false, dryRun: true })),
        attempt(() => deleteProfile(name, { deleteSessions: true, dryRun: true })),
      ])
    : [null, null];
  const retentionDays = policies.ok ? retentionDaysOf(policies.value, name) : null;
  const routeCount = routes.ok ? `${formatNumber(routes.value.count)}${routes.value.capped ? '+' : ''}` : '?';

  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: '/profiles', label: 'Profiles' }, { label: name }]}
        title={`Profile ${name}`}
        description={
          profile.lastActiveAt ? (
            <>
              Last activity <Timestamp iso={profile.lastActiveAt} />.
            </>
          ) : (
            'No activity yet.'
          )
        }
        actions={
          <>
            <ButtonLink href={hrefWith('/sessions', { profile: name })} size="sm">
              Sessions
            </ButtonLink>
            <ButtonLink href={hrefWith('/routes', { profile: name })} size="sm">
              Routes
            </ButtonLink>
          </>
        }
      />

      {renamed ? <RenamedAlert from={renamed.from} to={name} counts={renamed.counts} /> : null}

      <StatStrip>
        <Stat label="conversations" value={profile.conversationCount} href={hrefWith('/sessions', { profile: name })} />
        <Stat label="messages" value={profile.messageCount} />
        <Stat label="routes" value={routeCount} href={hrefWith('/routes', { profile: name })} />
        <Stat
          label="retention"
          value={!policies.ok ? '—' : retentionDays === null ? 'forever' : `${retentionDays} d`}
        />
      </StatStrip>

      {labels.ok ? (
        <LabelManager profile={name} labels={labels.value.items} />
      ) : (
        <ApiErrorAlert error={labels.error} title="Labels could not be loaded" />
      )}

      {admin && keepRun && deleteRun ? (
        <ProfileAdmin
          profile={profile}
          profiles={profiles.value}
          policies={policies}
          routes={routes}
          proposed={proposed}
          keepRun={keepRun}
          deleteRun={deleteRun}
        />
      ) : (
        <Alert tone="info" title="Read only">
          <p>Renaming, deleting and retention are for administrators.</p>
        </Alert>
      )}
    </>
  );
}
