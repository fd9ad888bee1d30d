import type { SessionFacets } from '@statehouse/contracts';

export interface Choices {
  sources: { value: string; label: string }[];
  models: { value: string; label: string }[];
}

/**
 * The API's facets as filter choices, most used first; sessions without a model cannot be chosen.
 * The facets' numbers are not shown: they count every session ever started with a value (compression
 * segments, sub-agents, hidden, archived and ended ones, by the source it started on), while the
 * list counts conversations matching the current filters by their current source — "discord (12)"
 * above a list of 2 discord conversations read as a wrong count. The list's own total is the count.
 */
export function choicesOf(facets: SessionFacets | null): Choices {
  if (!facets) return { sources: [], models: [] };
  const choice = (value: string) => ({ value, label: value });
  return {
    sources: facets.sources.flatMap((facet) => (facet.value ? [choice(facet.value)] : [])),
    models: facets.models.flatMap((facet) => (facet.value ? [choice(facet.value)] : [])),
  };
}
