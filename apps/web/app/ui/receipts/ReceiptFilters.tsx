import { DELETION_INTENTS, DELETION_ORIGINS } from '@statehouse/contracts';
import { ButtonLink, Field, FilterForm, Input, Select, SubmitButton } from '@/app/ui/common';
import { hrefWith } from '@/lib/paths';
import type { ReceiptListRaw } from '@/lib/receipt-list-state';
import './receipts.css';
import { intentLabel, originLabel } from '@/lib/wording';

/** A plain GET form over the replay: intent, origin and the `after` cursor; the profile is kept. */
export function ReceiptFilters({ raw }: { raw: ReceiptListRaw }) {
  return (
    <FilterForm
      label="Filter receipts"
      action="/receipts"
      className="filter-form--receipts"
      keep={{ profile: raw.profile, limit: raw.limit, order: raw.order }}
    >
      <Field label="Intent" htmlFor="filter-intent">
        <Select id="filter-intent" name="intent" defaultValue={raw.intent ?? ''}>
          <option value="">Any intent</option>
          {DELETION_INTENTS.map((intent) => (
            <option key={intent} value={intent} title={intent}>
              {intentLabel(intent)}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Origin" htmlFor="filter-origin">
        <Select id="filter-origin" name="origin" defaultValue={raw.origin ?? ''}>
          <option value="">Any origin</option>
          {DELETION_ORIGINS.map((origin) => (
            <option key={origin} value={origin} title={origin}>
              {originLabel(origin)}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="After sequence" htmlFor="filter-after">
        <Input
          id="filter-after"
          name="after"
          type="number"
          min={0}
          inputMode="numeric"
          placeholder="0 — from the start"
          title="Replay cursor: show receipts after this sequence, oldest first"
          defaultValue={raw.after}
        />
      </Field>
      <div className="filter-form__buttons filter-form__buttons--end">
        <ButtonLink href={hrefWith('/receipts', { profile: raw.profile })} variant="ghost">
          Reset
        </ButtonLink>
        <SubmitButton>Apply</SubmitButton>
      </div>
    </FilterForm>
  );
}
