import { randomUUID } from 'node:crypto';
import type { DeleteProfileResponse } from '@statehouse/contracts';
import { ApiErrorAlert, Card } from '@/app/ui/common';
import type { Attempt } from '@/lib/attempt';
import { plural } from '@/lib/format';
import { DeleteProfileForm } from './ProfileForms';
import './profiles.css';

/** Delete, with both choices priced by a dry run: keep the profile's sessions, or delete them too. */
export function DeleteProfileCard({
  name,
  keepRun,
  deleteRun,
}: {
  name: string;
  keepRun: Attempt<DeleteProfileResponse>;
  deleteRun: Attempt<DeleteProfileResponse>;
}) {
  const failure = !keepRun.ok ? keepRun.error : !deleteRun.ok ? deleteRun.error : null;
  return (
    <Card
      title="Delete"
      className="confirm-card"
      description="Removes the profile’s identity: its routes, and its place in every token’s and user’s profile set."
    >
      {keepRun.ok && deleteRun.ok ? (
        <DeleteProfileForm
          name={name}
          idempotencyKey={randomUUID()}
          keepOption={<DeleteOption run={keepRun.value} keep />}
          deleteOption={<DeleteOption run={deleteRun.value} keep={false} />}
        />
      ) : failure ? (
        <ApiErrorAlert error={failure} title="The delete preview could not be loaded" />
      ) : null}
    </Card>
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
