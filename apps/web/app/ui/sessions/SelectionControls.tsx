'use client';

import { useCallback, useEffect, useId, useState } from 'react';
import { SubmitButton } from '@/app/ui/common';
import './sessions.css';

interface SelectionControlsProps {
  /** The form the row checkboxes belong to (their `form` attribute). */
  formId: string;
  /** Changes when the list shows other rows, so the count is taken again. */
  listKey: string;
}

/**
 * "Select all" and the count of selected rows for the bulk delete. Without JavaScript the rows'
 * checkboxes and the submit button still work (a GET to the preview); this only adds convenience.
 */
export function SelectionControls({ formId, listKey }: SelectionControlsProps) {
  const allId = useId();
  const [hydrated, setHydrated] = useState(false);
  const [selected, setSelected] = useState(0);
  const [total, setTotal] = useState(0);

  const boxes = useCallback(
    () => Array.from(document.querySelectorAll<HTMLInputElement>(`input[type="checkbox"][form="${formId}"]`)),
    [formId],
  );
  const recount = useCallback(() => {
    const all = boxes();
    setTotal(all.length);
    setSelected(all.filter((box) => box.checked).length);
  }, [boxes]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: listKey marks a new set of rows
  useEffect(() => {
    setHydrated(true);
    recount();
    const onChange = (event: Event) => {
      if (event.target instanceof HTMLInputElement && event.target.getAttribute('form') === formId) recount();
    };
    document.addEventListener('change', onChange);
    return () => document.removeEventListener('change', onChange);
  }, [formId, recount, listKey]);

  const allChecked = total > 0 && selected === total;
  return (
    <div className="selection-controls">
      {hydrated && total > 0 ? (
        <label className="checkbox selection-controls__all" htmlFor={allId}>
          <input
            id={allId}
            type="checkbox"
            checked={allChecked}
            ref={(input) => {
              if (input) input.indeterminate = selected > 0 && !allChecked;
            }}
            onChange={(event) => {
              for (const box of boxes()) box.checked = event.currentTarget.checked;
              recount();
            }}
          />
          <span>Select all on this page</span>
        </label>
      ) : null}
      <span className="selection-controls__count" aria-live="polite">
        {hydrated ? (selected === 0 ? 'None selected' : `${selected} selected`) : ''}
      </span>
      <SubmitButton form={formId} variant="danger" size="sm" disabled={hydrated && selected === 0}>
        Delete selected…
      </SubmitButton>
    </div>
  );
}
