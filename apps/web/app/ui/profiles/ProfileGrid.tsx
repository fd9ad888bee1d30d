import type { ProfileSummary, RetentionPolicy } from '@statehouse/contracts';
import type { Attempt } from '@/lib/attempt';
import { retentionDaysOf } from '@/lib/profile-results';
import { ProfileCard } from './ProfileCard';
import './profiles.css';

/** Every visible profile as a card; retention badges only when the policies loaded. */
export function ProfileGrid({
  profiles,
  policies,
  admin,
}: {
  profiles: ProfileSummary[];
  policies: Attempt<RetentionPolicy[]>;
  admin: boolean;
}) {
  return (
    <ul className="profile-grid" aria-label="Profiles">
      {profiles.map((profile) => (
        <ProfileCard
          key={profile.name}
          profile={profile}
          retentionDays={policies.ok ? retentionDaysOf(policies.value, profile.name) : undefined}
          admin={admin}
        />
      ))}
    </ul>
  );
}
