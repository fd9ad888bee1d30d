import { Field, Input } from './Field';

interface DateRangeFieldsProps {
  /** Prefix of the two inputs' ids. */
  idPrefix: string;
  /** URL keys of the range's start and (inclusive) end. */
  names: [from: string, to: string];
  labels: [from: string, to: string];
  /** Values from the URL (a date, or a date-time whose date is shown). */
  values: [from: string | undefined, to: string | undefined];
}

/** Two date pickers for a range; the page's URL state makes the end date inclusive for the API. */
export function DateRangeFields({ idPrefix, names, labels, values }: DateRangeFieldsProps) {
  return (
    <>
      {names.map((name, index) => (
        <Field key={name} label={labels[index]} htmlFor={`${idPrefix}-${name}`}>
          <Input id={`${idPrefix}-${name}`} name={name} type="date" defaultValue={values[index]?.slice(0, 10)} />
        </Field>
      ))}
    </>
  );
}
