import { CreateUserForm } from '@/app/ui/admin/CreateUserForm';
import { UserList } from '@/app/ui/admin/UserList';
import { ApiErrorAlert, Card, PageHeader } from '@/app/ui/common';
import { adminTitle } from '@/lib/admin';
import { getMe, listProfiles, listUsers } from '@/lib/api';
import { attempt } from '@/lib/attempt';

export const generateMetadata = adminTitle('Users');

/** Dashboard users (administrators only, admin/layout.tsx): create, role and profiles, disable. */
export default async function UsersPage() {
  const [me, users, profiles] = await Promise.all([attempt(getMe), attempt(listUsers), attempt(listProfiles)]);
  const profileNames = profiles.ok ? profiles.value.map((profile) => profile.name) : [];
  return (
    <>
      <PageHeader title="Users" description="People who sign in to the dashboard. Agents use API tokens instead." />
      <Card title="Create a user">
        <CreateUserForm profiles={profileNames} />
      </Card>
      <Card title="All users">
        {users.ok ? (
          <UserList users={users.value} profiles={profileNames} selfId={me.ok ? me.value.id : null} />
        ) : (
          <ApiErrorAlert error={users.error} title="Users could not be loaded" />
        )}
      </Card>
    </>
  );
}
