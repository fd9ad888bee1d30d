import { MESSAGE_ROLES, SEARCH_MODES } from '@statehouse/contracts';
import { Field, FilterForm, Input, Select, SubmitButton } from '@/app/ui/common';
import { FacetFields } from '@/app/ui/sessions/FacetFields';
import type { Choices } from '@/lib/facets';
import { humanize } from '@/lib/format';
import type { SearchRaw } from '@/lib/search-state';
import './search.css';

const MODE_LABELS: Record<(typeof SEARCH_MODES)[number], string> = {
  auto: 'Automatic',
  word: 'Whole words',
  substring: 'Substring (CJK, fragments)',
};

/** A plain GET form: a search is a URL (shareable, back-button safe); the profile is kept. */
export function SearchForm({ raw, choices }: { raw: SearchRaw; choices: Choices }) {
  return (
    <FilterForm
      label="Search messages"
      action="/search"
      className="filter-form--search"
      // The period (from, until, zone) is the shared period control's, above this form.
      keep={{ profile: raw.profile, period: raw.period, from: raw.from, to: raw.to, tz: raw.tz }}
    >
      <Field label="Search for" htmlFor="search-q" className="filter-form__wide">
        <Input
          id="search-q"
          name="q"
          type="search"
          required
          maxLength={2048}
          defaultValue={raw.q}
          placeholder="e.g. rollback, 会议, 東京"
        />
      </Field>
      <Field label="Role" htmlFor="search-role">
        <Select id="search-role" name="role" defaultValue={raw.role ?? ''}>
          <option value="">Any role</option>
          {MESSAGE_ROLES.filter((role) => role !== 'session_meta').map((role) => (
            <option key={role} value={role}>
              {humanize(role)}
            </option>
          ))}
        </Select>
      </Field>
      <FacetFields idPrefix="search" facets={['source']} choices={choices} values={{ source: raw.source }} />
      <Field label="Match" htmlFor="search-mode">
        <Select id="search-mode" name="mode" defaultValue={raw.mode ?? 'auto'}>
          {SEARCH_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {MODE_LABELS[mode]}
            </option>
          ))}
        </Select>
      </Field>
      <div className="filter-form__footer">
        <p className="field__hint">
          Hidden scaffolding is never searched; substring matches skip tool output and cron or sub-agent sessions.
        </p>
        <div className="filter-form__buttons">
          <SubmitButton>Search</SubmitButton>
        </div>
      </div>
    </FilterForm>
  );
}
