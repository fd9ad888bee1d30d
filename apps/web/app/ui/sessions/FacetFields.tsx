import { ChoiceField } from '@/app/ui/common';
import type { Choices } from '@/lib/facets';

const FACETS = {
  source: { label: 'Source', anyLabel: 'Any source', choices: (choices: Choices) => choices.sources },
  model: { label: 'Model', anyLabel: 'Any model', choices: (choices: Choices) => choices.models },
} as const;
export type FacetName = keyof typeof FACETS;

interface FacetFieldsProps {
  idPrefix: string;
  facets: readonly FacetName[];
  choices: Choices;
  values: Partial<Record<FacetName, string>>;
}

/** Filters as a choice of the values the API has seen (surfaces, models), by URL key. */
export function FacetFields({ idPrefix, facets, choices, values }: FacetFieldsProps) {
  return (
    <>
      {facets.map((name) => (
        <ChoiceField
          key={name}
          id={`${idPrefix}-${name}`}
          name={name}
          label={FACETS[name].label}
          anyLabel={FACETS[name].anyLabel}
          choices={FACETS[name].choices(choices)}
          defaultValue={values[name]}
        />
      ))}
    </>
  );
}
