import { Field, Select } from './Field';

interface ChoiceFieldProps {
  id: string;
  name: string;
  label: string;
  /** The first option, meaning "no filter", e.g. "Any source". */
  anyLabel: string;
  /** Known values, most used first (the API's facets). */
  choices: { value: string; label?: string }[];
  defaultValue?: string;
}

/**
 * A filter as a choice of known values. A value in the URL that is not (or no longer) known is
 * kept as an option, so the form shows what the list is filtered by.
 */
export function ChoiceField({ id, name, label, anyLabel, choices, defaultValue }: ChoiceFieldProps) {
  const known = choices.some((choice) => choice.value === defaultValue);
  return (
    <Field label={label} htmlFor={id}>
      <Select id={id} name={name} defaultValue={defaultValue ?? ''}>
        <option value="">{anyLabel}</option>
        {defaultValue && !known ? <option value={defaultValue}>{defaultValue}</option> : null}
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label ?? choice.value}
          </option>
        ))}
      </Select>
    </Field>
  );
}
