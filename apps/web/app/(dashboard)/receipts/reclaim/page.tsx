import { ReclaimRequestSchema } from '@statehouse/contracts';
import { Alert, ApiErrorAlert, ButtonLink, PageHeader } from '@/app/ui/common';
import { ReclaimReview } from '@/app/ui/receipts/ReclaimReview';
import { adminTitle } from '@/lib/admin';
import { listReceiptConsumers, receiptMarks } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { firstParam, type RawSearchParams } from '@/lib/paths';

export const generateMetadata = adminTitle('Reclaim receipts');

/** Reviews a reclamation before it runs: the range, the mode, and which consumers it would overtake. */
export default async function ReclaimPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const request = ReclaimRequestSchema.safeParse({
    throughSequence: Number(firstParam(params.through)),
    mode: firstParam(params.mode) ?? 'safe',
  });
  const [marks, consumers] = await Promise.all([attempt(receiptMarks), attempt(listReceiptConsumers)]);

  const header = (
    <PageHeader
      breadcrumbs={[{ href: '/receipts', label: 'Receipts' }, { label: 'Reclaim' }]}
      title="Reclaim receipts"
      description="Permanently delete old receipts to bound the feed’s size."
    />
  );
  if (!request.success || !Number.isInteger(request.data.throughSequence)) {
    return (
      <>
        {header}
        <Alert
          tone="danger"
          role="alert"
          title="Choose a sequence to reclaim through"
          actions={<ButtonLink href="/receipts">Back to receipts</ButtonLink>}
        >
          <p>Give a whole sequence number (0 or more) and a mode, safe or force.</p>
        </Alert>
      </>
    );
  }
  if (!marks.ok) {
    return (
      <>
        {header}
        <ApiErrorAlert error={marks.error} />
      </>
    );
  }

  return (
    <>
      {header}
      <ReclaimReview request={request.data} marks={marks.value} consumers={consumers.ok ? consumers.value : null} />
    </>
  );
}
