import { ROLES, type Role } from '@statehouse/contracts';
import { Field, Select } from '@/app/ui/common';

/** Administrators manage users, tokens, profiles and receipts; members read their profiles. */
export function RoleSelect({ id, value, label = 'Role' }: { id: string; value: Role; label?: string }) {
  return (
    <Field label={label} htmlFor={id}>
      <Select id={id} name="role" defaultValue={value}>
        {ROLES.map((role) => (
          <option key={role} value={role}>
            {role === 'admin' ? 'Administrator' : 'Member'}
          </option>
        ))}
      </Select>
    </Field>
  );
}
