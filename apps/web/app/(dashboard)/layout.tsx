import type { ReactNode } from 'react';
import { DashboardShell } from '@/app/ui/shell/DashboardShell';

/** Every dashboard page: who is signed in, the profile switcher and the primary navigation. */
export default function DashboardLayout({ children }: { children: ReactNode }) {
  return <DashboardShell>{children}</DashboardShell>;
}
