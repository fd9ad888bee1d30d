import type { ReactNode } from 'react';
import { requireAdmin } from '@/lib/admin';

/** User and token administration: members get a 404 before anything is fetched. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  await requireAdmin();
  return children;
}
