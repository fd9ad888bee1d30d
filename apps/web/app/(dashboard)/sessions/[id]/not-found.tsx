import { NotFoundCard } from '@/app/ui/common';

export default function SessionNotFound() {
  return (
    <NotFoundCard
      title="Session not found"
      description="It may have been deleted, or it belongs to a profile you cannot see."
      back={{ href: '/sessions', label: 'Back to sessions' }}
    />
  );
}
