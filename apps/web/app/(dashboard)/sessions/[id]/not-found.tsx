import { ButtonLink, Card, EmptyState } from '@/app/ui/common';

export default function SessionNotFound() {
  return (
    <Card>
      <EmptyState
        title="Session not found"
        description="It may have been deleted, or it belongs to a profile you cannot see."
        action={<ButtonLink href="/sessions">Back to sessions</ButtonLink>}
      />
    </Card>
  );
}
