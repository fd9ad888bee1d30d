import { NotFoundCard } from '@/app/ui/common';

export default function ProfileNotFound() {
  return (
    <NotFoundCard
      title="Profile not found"
      description="There is no such profile you can see. It may have been renamed or deleted."
      back={{ href: '/profiles', label: 'All profiles' }}
    />
  );
}
