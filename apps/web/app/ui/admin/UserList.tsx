import type { User } from '@statehouse/contracts';
import { UserRow } from './UserRow';
import './admin.css';

export function UserList({ users, profiles, selfId }: { users: User[]; profiles: string[]; selfId: string | null }) {
  return (
    <ul className="user-list" aria-label="Users">
      {users.map((user) => (
        <UserRow key={user.id} user={user} profiles={profiles} self={user.id === selfId} />
      ))}
    </ul>
  );
}
