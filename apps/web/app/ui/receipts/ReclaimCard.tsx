import { Card, Field, Input, Select, SubmitButton } from '@/app/ui/common';
import './receipts.css';

/** Asks for a reclamation; the review page (a GET) shows what it would do before anything runs. */
export function ReclaimCard({ floor, highWater }: { floor: number | null; highWater: number | null }) {
  return (
    <Card
      title="Reclaim"
      description="Delete old receipts through a sequence. Sequences are never reused; replays below the new floor answer 410."
    >
      <form action="/receipts/reclaim" method="get" className="reclaim-form">
        <Field label="Through sequence" htmlFor="reclaim-through">
          <Input
            id="reclaim-through"
            name="through"
            type="number"
            min={floor ?? 0}
            max={highWater ?? undefined}
            required
            inputMode="numeric"
            defaultValue={floor !== null && highWater !== null && highWater > floor ? String(floor + 1) : undefined}
          />
        </Field>
        <Field label="Mode" htmlFor="reclaim-mode">
          <Select id="reclaim-mode" name="mode" defaultValue="safe">
            <option value="safe">Safe (respect consumers)</option>
            <option value="force">Force (ignore consumers)</option>
          </Select>
        </Field>
        <SubmitButton variant="secondary">Review…</SubmitButton>
      </form>
    </Card>
  );
}
