import { Field, HiddenFields, hintId, Input, SegmentedNav, SubmitButton } from '@/app/ui/common';
import { DayZoneField } from '@/app/ui/common/DayZoneField';
import { hrefWith } from '@/lib/paths';
import { PERIOD_PRESETS, type Period, type PeriodPreset, periodParams } from '@/lib/period';
import { ZoneSync } from './ZoneSync';
import './period.css';

interface PeriodControlProps {
  period: Period;
  /** The page's period when the URL names none. */
  fallback: PeriodPreset;
  /** The page the control navigates (its own). */
  action: string;
  /** The page's other URL keys, kept when the period changes (not its cursor). */
  keep: Record<string, string | undefined>;
  /** The zone the URL named (`tz`), undefined when none. */
  urlZone: string | undefined;
  /** The test id of the custom range's zone hint (search has no other date form: its `date-zone`). */
  zoneTestId?: string;
}

/**
 * The period of a page, shared by the overview, the sessions list and search: presets as links
 * (each period is a URL of its own), a custom range of whole days as a GET form, and the time zone
 * both are read in, named.
 */
export function PeriodControl({
  period,
  fallback,
  action,
  keep,
  urlZone,
  zoneTestId = 'period-date-zone',
}: PeriodControlProps) {
  const presets = Object.keys(PERIOD_PRESETS) as PeriodPreset[];
  const zoneHint = hintId('period-dates');
  return (
    <div className="period-control" data-testid="period-control">
      <SegmentedNav
        label="Period"
        options={presets.map((key) => ({
          href: hrefWith(action, {
            ...keep,
            ...periodParams({ key, timeZone: period.timeZone, issues: [] }, fallback),
          }),
          label: PERIOD_PRESETS[key].label,
          current: period.key === key,
        }))}
      />
      <details className="period-control__custom" open={period.key === 'custom' ? true : undefined}>
        <summary>Custom range</summary>
        <form action={action} method="get" className="period-control__form">
          <HiddenFields values={keep} />
          <input type="hidden" name="period" value="custom" />
          <Field label="From" htmlFor="period-from">
            <Input
              id="period-from"
              name="from"
              type="date"
              defaultValue={period.fromDate}
              aria-describedby={zoneHint}
            />
          </Field>
          <Field label="Until" htmlFor="period-to">
            <Input id="period-to" name="to" type="date" defaultValue={period.toDate} aria-describedby={zoneHint} />
          </Field>
          <DayZoneField zone={urlZone} hintId={zoneHint} testId={zoneTestId} />
          <SubmitButton>Show range</SubmitButton>
        </form>
      </details>
      <p className="period-control__zone" data-testid="period-zone">
        Time zone: <strong>{period.timeZone}</strong>
      </p>
      <ZoneSync zone={urlZone} />
    </div>
  );
}
