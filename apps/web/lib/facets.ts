import type { SessionFacets } from '@statehouse/contracts';
import { formatNumber } from './format';

export interface Choices {
  sources: { value: string; label: string }[];
  models: { value: string; label: string }[];
}

/** The API's facets as filter choices ("discord (12)"); sessions without a model cannot be chosen. */
export function choicesOf(facets: SessionFacets | null): Choices {
  if (!facets) return { sources: [], models: [] };
  const choice = (value: string, sessions: number) => ({ value, label: `${value} (${formatNumber(sessions)})` });
  return {
    sources: facets.sources.flatMap((facet) => (facet.value ? [choice(facet.value, facet.sessions)] : [])),
    models: facets.models.flatMap((facet) => (facet.value ? [choice(facet.value, facet.sessions)] : [])),
  };
}
