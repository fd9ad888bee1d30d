import { listSessionLabels } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { hrefWith } from '@/lib/paths';
import { LabelChips } from './LabelChips';
import './labels.css';

/**
 * The labels a session carries, under its header; each links to the profile's sessions with that
 * label. Loads on its own: a failure leaves the chips out, never the page.
 */
export async function SessionLabels({ sessionId, profile }: { sessionId: string; profile: string }) {
  const labels = await attempt(() => listSessionLabels(sessionId));
  if (!labels.ok || labels.value.items.length === 0) return null;
  return (
    <div className="session-labels">
      <LabelChips labels={labels.value.items} hrefOf={(label) => hrefWith('/sessions', { profile, label })} />
    </div>
  );
}
