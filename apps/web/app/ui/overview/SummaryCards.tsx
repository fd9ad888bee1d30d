import { Suspense } from 'react';
import { Stat, StatStrip } from '@/app/ui/common';
import type { OverviewRange } from '@/lib/overview';
import { SUMMARY_FIGURES, SUMMARY_LABELS, SummaryFigure } from './SummaryFigure';
import './overview.css';

/** The headline figures of the period; each streams in on its own. */
export function SummaryCards({ range }: { range: OverviewRange }) {
  return (
    <section aria-label="Figures for this period" className="overview-figures" data-testid="overview-figures">
      <StatStrip>
        {SUMMARY_FIGURES.map((name) => (
          <div key={name} className="overview-figures__item" data-figure={name}>
            <Suspense fallback={<Stat label={SUMMARY_LABELS[name]} value="…" />}>
              <SummaryFigure range={range} name={name} />
            </Suspense>
          </div>
        ))}
      </StatStrip>
    </section>
  );
}
