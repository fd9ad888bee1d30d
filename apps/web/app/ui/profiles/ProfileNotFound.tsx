import { ButtonLink, Card, EmptyState } from '@/app/ui/common';

export function ProfileNotFound({ name }: { name: string }) {
  return (
    <Card>
      <EmptyState
        title="Profile not found"
        description={`There is no profile “${name}” you can see. It may have been renamed or deleted.`}
        action={<ButtonLink href="/profiles">All profiles</ButtonLink>}
      />
    </Card>
  );
}
