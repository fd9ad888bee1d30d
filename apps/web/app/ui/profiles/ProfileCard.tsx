import type { ProfileSummary } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, Timestamp } from '@/app/ui/common';
import { formatNumber } from '@/lib/format';
import { hrefWith, profileHref } from '@/lib/paths';
import './profiles.css';

interface ProfileCardProps {
  profile: ProfileSummary;
  /** Days ended sessions are kept (`null`: forever); `undefined` when the policies could not be loaded. */
  retentionDays: number | null | undefined;
  admin: boolean;
}

/** One profile in the grid: its counts, last activity, retention, and links into its lists. */
export function ProfileCard({ profile, retentionDays, admin }: ProfileCardProps) {
  return (
    <li className="profile-card" data-profile={profile.name}>
      <div className="profile-card__head">
        <h2 className="profile-card__name">
          <Link href={profileHref(profile.name)} className="profile-card__link">
            {profile.name}
          </Link>
        </h2>
        {retentionDays !== undefined ? (
          <Badge tone={retentionDays === null ? 'neutral' : 'info'} title="Retention policy">
            {retentionDays === null ? 'kept forever' : `retention ${retentionDays} d`}
          </Badge>
        ) : null}
      </div>
      <dl className="profile-card__stats">
        <div>
          <dt>Conversations</dt>
          <dd title={`${formatNumber(profile.sessionCount)} session rows, segments and sub-agents included`}>
            {formatNumber(profile.conversationCount)}
          </dd>
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
}
