'use client';

import type { ImportReport } from '@statehouse/contracts';
import { useEffect, useRef } from 'react';
import { Alert, Button } from '@/app/ui/common';
import { plural } from '@/lib/format';

/**
 * What importing with "Replace" would do, from the file's dry run, and the explicit confirmation it
 * needs: each replaced session is deleted here (with a deletion receipt) and imported from the file.
 */
export function ReplaceReview({
  report,
  name,
  onConfirm,
  onCancel,
}: {
  report: ImportReport;
  name: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const heading = useRef<HTMLParagraphElement>(null);
  // The review replaces the form's buttons as the next step: keyboard and screen-reader users land on it.
  useEffect(() => heading.current?.focus(), []);
  const replaced = report.sessions.conflicts;
  return (
    <Alert tone={replaced > 0 ? 'warning' : 'info'} title="Review before replacing">
      <p ref={heading} tabIndex={-1} data-testid="replace-summary">
        Importing {name} would replace {plural(replaced, 'existing session')}, create{' '}
        {plural(report.sessions.created, 'session')} and update {plural(report.sessions.updated, 'session')}.
        {replaced > 0
          ? ' Each replaced session is deleted here, with a deletion receipt, and imported from the file.'
          : ''}
      </p>
      <div className="import-form__actions">
        <Button type="button" variant={replaced > 0 ? 'danger' : 'primary'} onClick={onConfirm}>
          {replaced > 0 ? `Replace ${plural(replaced, 'session')} and import` : 'Import'}
        </Button>
        <Button type="button" variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </Alert>
  );
}
