import type { ProfileSet } from '@statehouse/contracts';

/** The "profiles" checkboxes of a user or token form: "All profiles" (`*`) wins over single names. */
export function profileSetFrom(formData: FormData): unknown {
  const values = formData.getAll('profiles').map(String);
  return values.includes('*') ? '*' : values;
}

export function describeProfileSet(profiles: ProfileSet): string {
  if (profiles === '*') return 'all profiles';
  return profiles.length === 0 ? 'no profiles' : profiles.join(', ');
}
