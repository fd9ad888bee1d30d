import type { ProfileSet } from '@statehouse/contracts';
import { Checkbox } from '@/app/ui/common';
import './admin.css';

interface ProfileChoicesProps {
  /** Prefix of the checkboxes' ids (one fieldset per form). */
  idPrefix: string;
  profiles: string[];
  value: ProfileSet;
  legend?: string;
}

/** Which profiles a user or token may read: all of them (`*`), or some by name. */
export function ProfileChoices({ idPrefix, profiles, value, legend = 'Profiles' }: ProfileChoicesProps) {
  const chosen = (name: string) => value !== '*' && value.includes(name);
  return (
    <fieldset className="profile-choices">
      <legend className="field__label">{legend}</legend>
      <Checkbox id={`${idPrefix}-all`} name="profiles" value="*" defaultChecked={value === '*'} label="All profiles" />
      {profiles.map((name) => (
        <Checkbox
          key={name}
          id={`${idPrefix}-${name}`}
          name="profiles"
          value={name}
          defaultChecked={chosen(name)}
          label={name}
        />
      ))}
    </fieldset>
  );
}
