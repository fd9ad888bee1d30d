import { Alert, Card } from '@/app/ui/common';
import { plural } from '@/lib/format';
import { type ConfirmItem, DeleteConfirmForm } from './DeleteConfirmForm';

interface ConfirmCardProps {
  /** The selected sessions with the revision and generation the preview showed. */
  items: ConfirmItem[];
  /** How many sessions go in all (chain members and delegates included). */
  sessionCount: number;
  back: string;
  previewHref: string;
  idempotencyKey: string;
}

/** The point of no return: what the receipt records, and the confirmation form. */
export function ConfirmCard({ items, sessionCount, back, previewHref, idempotencyKey }: ConfirmCardProps) {
  return (
    <Card title="Confirm" className="confirm-card">
      <p className="preview-note">
        This cannot be undone. A content-free deletion receipt records which sessions were removed (ids, routing
        identity, roles) — no message text. The deletion is checked against the revisions shown here: anything that
        changed since is refused, never deleted unseen.
      </p>
      {items.length === 0 ? (
        <Alert tone="info" title="Nothing to delete">
          <p>None of the selected sessions exists any more.</p>
        </Alert>
      ) : null}
      <DeleteConfirmForm
        items={items}
        label={`Delete ${plural(sessionCount, 'session')} permanently`}
        back={back}
        previewHref={previewHref}
        idempotencyKey={idempotencyKey}
        disabled={items.length === 0}
      />
    </Card>
  );
}
