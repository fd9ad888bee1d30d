import type { DashboardSession } from '@statehouse/contracts';
import { Badge, Table, Timestamp } from '@/app/ui/common';
import { browserLabel } from '@/lib/user-agent';
import { SignOutSessionForm } from './SignOutSessionForm';
import './account.css';

/** Every browser signed in as this user, newest first; any but this one can be signed out here. */
export function SignedInSessions({ sessions }: { sessions: DashboardSession[] }) {
  return (
    <Table
      caption="Signed-in sessions"
      captionHidden
      className="account-sessions"
      head={['Browser', 'Address', 'Signed in', 'Last seen', 'Expires', '']}
      rows={sessions.map((session) => {
        const label = browserLabel(session.userAgent);
        return [
          <span key="browser" className="account-sessions__browser">
            {label}
            {session.current ? <Badge tone="accent">This browser</Badge> : null}
          </span>,
          session.address ?? '—',
          <Timestamp key="created" iso={session.createdAt} />,
          session.lastSeenAt ? <Timestamp key="seen" iso={session.lastSeenAt} /> : '—',
          <Timestamp key="expires" iso={session.expiresAt} relative={false} />,
          session.current ? (
            <span key="action" className="text-muted">
              Use “Log out”
            </span>
          ) : (
            <SignOutSessionForm key="action" sessionId={session.id} label={`${label} signed in ${session.createdAt}`} />
          ),
        ];
      })}
    />
  );
}
