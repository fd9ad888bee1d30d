import { randomUUID } from 'node:crypto';
import { type DeleteProfileResponse, ProfileNameSchema } from '@statehouse/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import {
  Alert,
  ApiErrorAlert,
  ButtonLink,
  Card,
  EmptyState,
  Field,
  Input,
  SubmitButton,
  Table,
  Timestamp,
} from '@/app/ui/common';
import { DeleteProfileForm, RenameConfirmForm, RetentionForm } from '@/app/ui/profiles/ProfileForms';
import { deleteProfile, getMe, listProfiles, listRetentionPolicies } from '@/lib/api';
import { type Attempt, attempt } from '@/lib/attempt';
import { formatNumber, plural } from '@/lib/format';
import { firstParam, hrefWith, profileHref, type RawSearchParams } from '@/lib/paths';
import { parseRenamed, RENAME_COUNT_KEYS, RENAME_COUNT_LABELS } from '@/lib/profile-results';
import { countRoutes } from '@/lib/routes';

interface ProfilePageProps {
  params: Promise<{ name: string }>;
  searchParams: Promise<RawSearchParams>;
}

export async function generateMetadata({ params }: ProfilePageProps): Promise<Metadata> {
  return { title: `Profile ${(await params).name}` };
}

const rewriteKey = (key: string, from: string, to: string) =>
  key.startsWith(`agent:${from}:`) ? `agent:${to}:${key.slice(`agent:${from}:`.length)}` : key;

/** One profile: its numbers, and for administrators retention, rename (with a preview) and delete. */
export default async function ProfilePage({ params, searchParams }: ProfilePageProps) {
  const parsedName = ProfileNameSchema.safeParse((await params).name);
  const query = await searchParams;
  const renamed = parseRenamed(query);
  const proposed = firstParam(query.rename)?.trim() ?? '';
  if (!parsedName.success) return <NotFound name={(await params).name} />;
  const name = parsedName.data;

  const [me, profiles, policies, routes] = await Promise.all([
    attempt(getMe),
    attempt(listProfiles),
    attempt(listRetentionPolicies),
    attempt(() => countRoutes(name)),
  ]);
  const admin = me.ok && me.value.role === 'admin';
  if (!profiles.ok) return <ApiErrorAlert error={profiles.error} title="Profiles could not be loaded" />;
  const profile = profiles.value.find((entry) => entry.name === name);
  if (!profile) return <NotFound name={name} />;

  const [keepRun, deleteRun] = admin
    ? await Promise.all([
        attempt(() => deleteProfile(name, { deleteSessions: false, dryRun: true })),
        attempt(() => deleteProfile(name, { deleteSessions: true, dryRun: true })),
      ])
    : [null, null];
  const dryRunFailure = keepRun && !keepRun.ok ? keepRun.error : deleteRun && !deleteRun.ok ? deleteRun.error : null;
  const retentionDays = policies.ok
    ? (policies.value.find((policy) => policy.profile === name)?.retentionDays ?? null)
    : null;
  const rename = proposed ? ProfileNameSchema.safeParse(proposed) : null;
  const routeCount = routes.ok ? `${formatNumber(routes.value.count)}${routes.value.capped ? '+' : ''}` : '?';

  return (
    <>
      <div>
        <nav aria-label="Breadcrumb">
          <ol className="breadcrumbs">
            <li>
              <Link href="/profiles">Profiles</Link>
            </li>
            <li aria-current="page">{name}</li>
          </ol>
        </nav>
        <div className="page-header">
          <div>
            <h1 className="page-header__title">Profile {name}</h1>
            <p className="page-header__description">
              {profile.lastActiveAt ? (
                <>
                  Last activity <Timestamp iso={profile.lastActiveAt} />.
                </>
              ) : (
                'No activity yet.'
              )}
            </p>
          </div>
          <div className="page-header__actions">
            <ButtonLink href={hrefWith('/sessions', { profile: name })} size="sm">
              Sessions
            </ButtonLink>
            <ButtonLink href={hrefWith('/routes', { profile: name })} size="sm">
              Routes
            </ButtonLink>
          </div>
        </div>
      </div>

      {renamed ? (
        <Alert tone="success" role="status" title={`Renamed “${renamed.from}” to “${name}”`}>
          <p>One transaction rewrote everything that carried the old name. Receipts keep the old name as history.</p>
          <ul className="rename-counts" aria-label="What the rename changed">
            {RENAME_COUNT_KEYS.map((key) => (
              <li key={key}>
                <strong>{formatNumber(renamed.counts[key])}</strong> {RENAME_COUNT_LABELS[key]}
              </li>
            ))}
          </ul>
        </Alert>
      ) : null}

      <div className="stat-strip">
        <Stat
          label="sessions"
          value={formatNumber(profile.sessionCount)}
          href={hrefWith('/sessions', { profile: name })}
        />
        <Stat label="messages" value={formatNumber(profile.messageCount)} />
        <Stat label="routes" value={routeCount} href={hrefWith('/routes', { profile: name })} />
        <Stat
          label="retention"
          value={!policies.ok ? '—' : retentionDays === null ? 'forever' : `${retentionDays} d`}
        />
      </div>

      {admin ? (
        <div className="profile-admin">
          <Card
            title="Retention"
            description="Ended sessions older than this are pruned by the retention job, whole lineages at a time, with receipts."
          >
            {policies.ok ? (
              <RetentionForm profile={name} retentionDays={retentionDays} />
            ) : (
              <ApiErrorAlert error={policies.error} title="Retention policies could not be loaded" />
            )}
          </Card>

          <Card
            title="Rename"
            description="Moves sessions, routes, routing keys (agent:old: → agent:new:) and memberships in one transaction."
          >
            <form action={profileHref(name)} method="get" className="rename-form">
              <Field label="New name" htmlFor="rename-to">
                <Input
                  id="rename-to"
                  name="rename"
                  required
                  maxLength={64}
                  defaultValue={proposed}
                  autoCapitalize="none"
                  spellCheck={false}
                  placeholder="e.g. helpdesk"
                />
              </Field>
              <SubmitButton variant="secondary">Preview rename</SubmitButton>
            </form>
            {rename && !rename.success ? (
              <Alert tone="danger" className="card-result" title="Not a valid profile name">
                <p>Use lowercase letters, digits, “-” and “_”, starting with a letter or digit (at most 64).</p>
              </Alert>
            ) : rename?.success && rename.data === name ? (
              <Alert tone="info" className="card-result" title="That is the current name" />
            ) : rename?.success ? (
              <RenamePreview
                name={name}
                newName={rename.data}
                sessions={profile.sessionCount}
                routes={routes}
                exists={profiles.value.some((entry) => entry.name === rename.data)}
              />
            ) : null}
          </Card>

          <Card
            title="Delete"
            className="confirm-card"
            description="Removes the profile’s identity: its routes, and its place in every token’s and user’s profile set."
          >
            {keepRun?.ok && deleteRun?.ok ? (
              <DeleteProfileForm
                name={name}
                idempotencyKey={randomUUID()}
                keepOption={<DeleteOption run={keepRun.value} keep />}
                deleteOption={<DeleteOption run={deleteRun.value} keep={false} />}
              />
            ) : dryRunFailure ? (
              <ApiErrorAlert error={dryRunFailure} title="The delete preview could not be loaded" />
            ) : null}
          </Card>
        </div>
      ) : (
        <Alert tone="info" title="Read only">
          <p>Renaming, deleting and retention are for administrators.</p>
        </Alert>
      )}
    </>
  );
}

function Stat({ label, value, href }: { label: string; value: string; href?: string }) {
  return (
    <div className="stat">
      <span className="stat__value">{href ? <Link href={href}>{value}</Link> : value}</span>
      <span className="stat__label">{label}</span>
    </div>
  );
}

function NotFound({ name }: { name: string }) {
  return (
    <Card>
      <EmptyState
        title="Profile not found"
        description={`There is no profile “${name}” you can see. It may have been renamed or deleted.`}
        action={<ButtonLink href="/profiles">All profiles</ButtonLink>}
      />
    </Card>
  );
}

function RenamePreview({
  name,
  newName,
  sessions,
  routes,
  exists,
}: {
  name: string;
  newName: string;
  sessions: number;
  routes: Attempt<Awaited<ReturnType<typeof countRoutes>>>;
  exists: boolean;
}) {
  return (
    <section className="rename-preview" aria-labelledby="rename-preview-heading" data-testid="rename-preview">
      <h3 className="preview-group__title" id="rename-preview-heading">
        Preview: {name} → {newName}
      </h3>
      <ul className="rename-preview__list">
        <li>
          <strong>{plural(sessions, 'session')}</strong> move to <code>{newName}</code> (with their transcripts and
          lineage).
        </li>
        <li>
          {routes.ok ? (
            <>
              <strong>
                {plural(routes.value.count, 'route')}
                {routes.value.capped ? ' or more' : ''}
              </strong>{' '}
              move, and every routing key starting <code>agent:{name}:</code> becomes <code>agent:{newName}:</code>.
            </>
          ) : (
            'Routes move with their keys rewritten (the count could not be loaded).'
          )}
        </li>
        <li>Tokens, users, the retention policy and conversation generations follow the new name.</li>
        <li>
          Deletion receipts keep <code>{name}</code>: they are history.
        </li>
      </ul>
      {routes.ok && routes.value.sample.length > 0 ? (
        <Table
          caption="Example keys, before and after"
          className="rename-preview__keys"
          head={['Before', 'After']}
          rows={routes.value.sample.map((route) => [
            <code key="before">{route.sessionKey}</code>,
            <code key="after">{rewriteKey(route.sessionKey, name, newName)}</code>,
          ])}
        />
      ) : null}
      {exists ? (
        <Alert tone="warning" title={`A profile named “${newName}” already exists`}>
          <p>
            Renaming into an existing profile is refused (409 profile_collision) before anything changes. Choose a new
            name.
          </p>
        </Alert>
      ) : null}
      <RenameConfirmForm name={name} newName={newName} idempotencyKey={randomUUID()} cancelHref={profileHref(name)} />
    </section>
  );
}

function DeleteOption({ run, keep }: { run: DeleteProfileResponse; keep: boolean }) {
  const { counts } = run;
  return (
    <>
      <span className="choice__title">{keep ? 'Keep its sessions' : 'Delete its sessions too'}</span>
      <span className="choice__detail">
        {keep
          ? `${plural(counts.routes, 'route')} removed; ${plural(counts.tokens, 'token')} and ${plural(counts.users, 'user')} lose the profile. Sessions stay (the profile remains while they exist).`
          : `Also ${plural(counts.sessions, 'session')} and ${plural(counts.messages, 'message')} are deleted through the deletion engine, with a receipt.`}
      </span>
    </>
  );
}
