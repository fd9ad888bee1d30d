import type { Metadata } from 'next';
import { NotFoundCard } from '@/app/ui/common';

export const metadata: Metadata = { title: 'Not found' };

/** Unknown addresses inside the dashboard, and administrator pages opened by a member (HTTP 404). */
export default function DashboardNotFound() {
  return (
    <NotFoundCard
      title="Page not found"
      description="There is nothing at this address that you can open. Some pages are for administrators only."
      back={{ href: '/', label: 'Go to the overview' }}
    />
  );
}
