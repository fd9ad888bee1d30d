import { SegmentedNav } from '@/app/ui/common';
import { OVERVIEW_PERIODS, type OverviewPeriod, overviewHref } from '@/lib/overview';

/** The period of every card and chart, as links (each period is a URL of its own). */
export function PeriodPicker({ period, profile }: { period: OverviewPeriod; profile: string | undefined }) {
  return (
    <SegmentedNav
      label="Period"
      options={(Object.keys(OVERVIEW_PERIODS) as OverviewPeriod[]).map((key) => ({
        href: overviewHref(key, profile),
        label: OVERVIEW_PERIODS[key].label,
        current: key === period,
      }))}
    />
  );
}
