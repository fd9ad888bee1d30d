import type { ReactNode } from 'react';
import { requireAdmin } from '@/lib/admin';

/** The receipt feed, its details and reclamation are for administrators: members get a 404. */
export default async function ReceiptsLayout({ children }: { children: ReactNode }) {
  await requireAdmin();
  return children;
}
