import { PageHeader } from '@/app/ui/common';

/** The preview's header: how many conversations the confirmation would delete. */
export function DeletionHeader({ count }: { count: number }) {
  return (
    <PageHeader
      breadcrumbs={[{ href: '/sessions', label: 'Sessions' }, { label: 'Delete' }]}
      title={count <= 1 ? 'Delete this conversation?' : `Delete ${count} conversations?`}
      description="Review exactly what goes before you confirm."
    />
  );
}
