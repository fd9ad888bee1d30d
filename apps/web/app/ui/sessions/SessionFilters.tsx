import { ButtonLink, Checkbox, DateRangeFields, Field, FilterForm, Input, Select, SubmitButton } from '@/app/ui/common';
import type { Choices } from '@/lib/facets';
import { type SessionListRaw, sessionListHref } from '@/lib/session-list-state';
import { FacetFields } from './FacetFields';

/**
 * The period (last activity) is the shared period control's, above this form; the form keeps it.
 * A plain GET form: applying filters is a navigation, so the URL holds the whole list state, the
 * back button works, and it needs no JavaScript. The profile comes from the header's switcher.
 */
export function SessionFilters({ raw, choices }: { raw: SessionListRaw; choices: Choices }) {
  return (
    <FilterForm
      label="Filter sessions"
      action="/sessions"
      keep={{
        profile: raw.profile,
        limit: raw.limit,
        view: raw.view,
        period: raw.period,
        from: raw.from,
        to: raw.to,
      }}
    >
      <Field label="Text" htmlFor="filter-q" className="filter-form__wide">
        <Input
          id="filter-q"
          name="q"
          type="search"
          placeholder="Title, id or first message"
          defaultValue={raw.q}
          maxLength={200}
        />
      </Field>
      <FacetFields
        idPrefix="filter"
        facets={['source', 'model']}
        choices={choices}
        values={{ source: raw.source, model: raw.model }}
      />
      <Field label="User" htmlFor="filter-user">
        <Input
          id="filter-user"
          name="userId"
          placeholder="Platform user id"
          defaultValue={raw.userId}
          maxLength={256}
          autoCapitalize="none"
          spellCheck={false}
        />
      </Field>
      <DateRangeFields
        idPrefix="filter"
        names={['startedFrom', 'startedTo']}
        labels={['Started from', 'Started until']}
        values={[raw.startedFrom, raw.startedTo]}
        zone={raw.tz}
      />
      <Field label="Status" htmlFor="filter-status">
        <Select id="filter-status" name="status" defaultValue={raw.status ?? 'all'}>
          <option value="all">Any status</option>
          <option value="open">Open</option>
          <option value="ended">Ended</option>
        </Select>
      </Field>
      <Field label="Archived" htmlFor="filter-archived">
        <Select id="filter-archived" name="archived" defaultValue={raw.archived ?? 'exclude'}>
          <option value="exclude">Hide archived</option>
          <option value="include">Include archived</option>
          <option value="only">Archived only</option>
        </Select>
      </Field>
      <Field label="Sort by" htmlFor="filter-order">
        <Select id="filter-order" name="order" defaultValue={raw.order ?? 'recent'}>
          <option value="recent">Last activity (newest first)</option>
          <option value="started">Start time (newest first)</option>
          <option value="messages">Messages (most first)</option>
          <option value="tokens">Tokens (most first)</option>
          <option value="cost">Cost (highest first)</option>
          <option value="duration">Duration (longest first)</option>
        </Select>
      </Field>
      <Field label="Messages at least" htmlFor="filter-min-messages">
        <Input
          id="filter-min-messages"
          name="minMessages"
          type="number"
          min={0}
          step={1}
          defaultValue={raw.minMessages}
        />
      </Field>
      <Field label="Messages at most" htmlFor="filter-max-messages">
        <Input
          id="filter-max-messages"
          name="maxMessages"
          type="number"
          min={0}
          step={1}
          defaultValue={raw.maxMessages}
        />
      </Field>
      <Field label="Tokens at least" htmlFor="filter-min-tokens">
        <Input id="filter-min-tokens" name="minTokens" type="number" min={0} step={1} defaultValue={raw.minTokens} />
      </Field>
      <Field label="Cost at least (USD)" htmlFor="filter-min-cost">
        <Input id="filter-min-cost" name="minCostUsd" type="number" min={0} step="any" defaultValue={raw.minCostUsd} />
      </Field>
      <Field label="Cost at most (USD)" htmlFor="filter-max-cost">
        <Input id="filter-max-cost" name="maxCostUsd" type="number" min={0} step="any" defaultValue={raw.maxCostUsd} />
      </Field>
      <div className="filter-form__footer">
        <Checkbox
          id="filter-children"
          name="includeChildren"
          value="true"
          defaultChecked={raw.includeChildren === 'true'}
          label="Include sub-agent (delegate) sessions"
        />
        <div className="filter-form__buttons">
          <ButtonLink
            href={sessionListHref({
              profile: raw.profile,
              view: raw.view,
              period: raw.period,
              from: raw.from,
              to: raw.to,
            })}
            variant="ghost"
          >
            Reset
          </ButtonLink>
          <SubmitButton>Apply filters</SubmitButton>
        </div>
      </div>
    </FilterForm>
  );
}
