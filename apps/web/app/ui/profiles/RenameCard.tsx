import { randomUUID } from 'node:crypto';
import { ProfileNameSchema } from '@statehouse/contracts';
import { Alert, Card, Field, Input, SubmitButton, Table } from '@/app/ui/common';
import type { Attempt } from '@/lib/attempt';
import { plural } from '@/lib/format';
import { profileHref } from '@/lib/paths';
import type { RouteCount } from '@/lib/routes';
import { RenameConfirmForm } from './ProfileForms';
import './profiles.css';

interface RenameCardProps {
  name: string;
  /** The name typed into the form (`?rename=`), previewed before anything changes. */
  proposed: string;
  sessions: number;
  routes: Attempt<RouteCount>;
  /** Whether a profile may already carry a name (a rename into it is refused). */
  exists: (name: string) => boolean;
}

const rewriteKey = (key: string, from: string, to: string) =>
  key.startsWith(`agent:${from}:`) ? `agent:${to}:${key.slice(`agent:${from}:`.length)}` : key;

/** Rename: a GET form proposes a name, the preview shows what moves, then a confirmation renames. */
export function RenameCard({ name, proposed, sessions, routes, exists }: RenameCardProps) {
  const rename = proposed ? ProfileNameSchema.safeParse(proposed) : null;
  return (
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
          sessions={sessions}
          routes={routes}
          exists={exists(rename.data)}
        />
      ) : null}
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
  routes: Attempt<RouteCount>;
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
