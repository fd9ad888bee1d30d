import { DayZoneField } from './DayZoneField';
import { Field, hintId, Input } from './Field';

interface DateRangeFieldsProps {
  /** Prefix of the two inputs' ids. */
  idPrefix: string;
  /** URL keys of the range's start and (inclusive) end. */
  names: [from: string, to: string];
  labels: [from: string, to: string];
  /** Values from the URL (a date, or a date-time whose date is shown). */
  values: [from: string | undefined, to: string | undefined];
  /** The zone the URL says the days are in (`tz`); the browser's own replaces it once loaded. */
  zone: string | undefined;
}

/**
 * Two date pickers for a range, in the viewer's time zone (lib/dates.ts); the page's URL state
 * makes the end date inclusive for the API. The hint under them names the zone.
 */
export function DateRangeFields({ idPrefix, names, labels, values, zone }: DateRangeFieldsProps) {
  const zoneHint = hintId(`${idPrefix}-dates`);
  return (
    <>
      {names.map((name, index) => (
        <Field key={name} label={labels[index]} htmlFor={`${idPrefix}-${name}`}>
          <Input
            id={`${idPrefix}-${name}`}
            name={name}
            type="date"
            defaultValue={values[index]?.slice(0, 10)}
            aria-describedby={zoneHint}
          />
        </Field>
      ))}
      <DayZoneField zone={zone} hintId={zoneHint} />
    </>
  );
}
