import { Field, Input } from '@/app/ui/common';
import { KNOWN_SOURCES } from '@/lib/session-display';

/** The surface a session came from: free text (sources are open-ended) with the common ones suggested. */
export function SourceField({ id, listId, defaultValue }: { id: string; listId: string; defaultValue?: string }) {
  return (
    <Field label="Source" htmlFor={id}>
      <Input
        id={id}
        name="source"
        list={listId}
        placeholder="Any source"
        defaultValue={defaultValue}
        maxLength={64}
        autoCapitalize="none"
        spellCheck={false}
      />
      <datalist id={listId}>
        {KNOWN_SOURCES.map((source) => (
          <option key={source} value={source} />
        ))}
      </datalist>
    </Field>
  );
}
