import { NotFoundCard } from '@/app/ui/common';

export default function ReceiptNotFound() {
  return (
    <NotFoundCard
      title="Receipt not found"
      description={
        'No receipt has this operation id: it may have been reclaimed, or it belongs to a profile you cannot see.'
      }
      back={{ href: '/receipts', label: 'All receipts' }}
    />
  );
}
