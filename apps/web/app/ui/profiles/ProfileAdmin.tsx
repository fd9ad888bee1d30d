import type { DeleteProfileResponse, ProfileSummary, RetentionPolicy } from '@statehouse/contracts';
import type { Attempt } from '@/lib/attempt';
import type { RouteCount } from '@/lib/routes';
import { DeleteProfileCard } from './DeleteProfileCard';
import { RenameCard } from './RenameCard';
import { RetentionCard } from './RetentionCard';
import './profiles.css';

interface ProfileAdminProps {
  profile: ProfileSummary;
  /** Every profile the administrator sees: a rename into one of them is refused. */
  profiles: ProfileSummary[];
  policies: Attempt<RetentionPolicy[]>;
  routes: Attempt<RouteCount>;
  /** The name typed into the rename form (`?rename=`). */
  proposed: string;
  /** Dry runs of both delete choices. */
  keepRun: Attempt<DeleteProfileResponse>;
  deleteRun: Attempt<DeleteProfileResponse>;
}

/** Retention, rename and delete of one profile (administrators). */
export function ProfileAdmin({ profile, profiles, policies, routes, proposed, keepRun, deleteRun }: ProfileAdminProps) {
  return (
    <div className="profile-admin">
      <RetentionCard name={profile.name} policies={policies} />
      <RenameCard
        name={profile.name}
        proposed={proposed}
        sessions={profile.sessionCount}
        routes={routes}
        exists={(candidate) => profiles.some((entry) => entry.name === candidate)}
      />
      <DeleteProfileCard name={profile.name} keepRun={keepRun} deleteRun={deleteRun} />
    </div>
  );
}
