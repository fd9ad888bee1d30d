import type { ReceiptConsumer } from '@statehouse/contracts';
import { ApiErrorAlert, Card, Table, Timestamp } from '@/app/ui/common';
import { loadActorNames, principalLabel } from '@/lib/actors';
import type { Attempt } from '@/lib/attempt';
import { formatNumber } from '@/lib/format';

/** Who replays the feed and how far each has acknowledged, lowest cursor first. */
export async function ConsumersCard({
  consumers,
  highWater,
}: {
  consumers: Attempt<ReceiptConsumer[]> | null;
  highWater: number | null;
}) {
  const actors = await loadActorNames();
  return (
    <Card
      title="Consumers"
      description="Plugins and services that replay the feed, with the cursor each has acknowledged. Safe reclamation never passes the lowest one."
    >
      {!consumers ? null : !consumers.ok ? (
        <ApiErrorAlert error={consumers.error} title="Consumers could not be loaded" />
      ) : consumers.value.length === 0 ? (
        <p className="card-note">
          No consumer has acknowledged a cursor yet (<code>PUT /v1/receipt-consumers/:name</code>).
        </p>
      ) : (
        <Table
          caption="Receipt consumers"
          captionHidden
          head={['Consumer', 'Cursor', 'Behind', 'Principal', 'Acknowledged']}
          numericColumns={[1, 2]}
          rows={[...consumers.value]
            .sort((a, b) => a.cursor - b.cursor)
            .map((consumer) => [
              <code key="name">{consumer.name}</code>,
              `#${formatNumber(consumer.cursor)}`,
              highWater === null ? '—' : formatNumber(Math.max(0, highWater - consumer.cursor)),
              <span key="principal" className="text-muted">
                {principalLabel(consumer.principal, actors)}
              </span>,
              <Timestamp key="at" iso={consumer.updatedAt} />,
            ])}
        />
      )}
    </Card>
  );
}
