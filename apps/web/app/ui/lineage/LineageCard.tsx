import type { LineageResponse } from '@statehouse/contracts';
import { ApiErrorAlert, Card } from '@/app/ui/common';
import type { Attempt } from '@/lib/attempt';
import { plural } from '@/lib/format';
import { edgeCounts } from '@/lib/lineage';
import { LineageTree } from './LineageTree';
import './lineage.css';

/** The lineage of the session the page shows: counts per edge kind, then the tree. */
export function LineageCard({ lineage, currentId }: { lineage: Attempt<LineageResponse>; currentId: string }) {
  if (!lineage.ok) {
    return (
      <Card title="Lineage">
        <ApiErrorAlert error={lineage.error} title="The lineage could not be loaded" />
      </Card>
    );
  }
  const value = lineage.value;
  const counts = edgeCounts(value);
  const parts = (['compression', 'branch', 'reset', 'delegate'] as const)
    .filter((kind) => counts[kind] > 0)
    .map((kind) => `${counts[kind]} ${kind}`);
  return (
    <Card
      title="Lineage"
      description={
        value.nodes.length > 1
          ? `${plural(value.nodes.length, 'session')} · ${parts.join(' · ')}`
          : 'A standalone conversation: no parent, no children.'
      }
      className="lineage-card"
    >
      {value.nodes.length > 1 ? (
        <LineageTree lineage={value} currentId={currentId} />
      ) : (
        <p className="lineage-summary">
          Compressions, branches, resets and sub-agents of <code>{currentId}</code> would appear here.
        </p>
      )}
    </Card>
  );
}
