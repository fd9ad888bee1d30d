import type { Metadata } from 'next';
import { Card } from '@/app/ui/common';
import { BrandMark } from '@/app/ui/shell/BrandMark';
import { firstParam, type RawSearchParams, safeNextPath } from '@/lib/paths';
import { LoginForm } from './LoginForm';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const next = safeNextPath(firstParam((await searchParams).next));
  return (
    <main id="main" tabIndex={-1} className="login-page">
      <div className="login-panel">
        <div className="login-panel__brand">
          <BrandMark size={22} />
          <h1>Sign in to Statehouse</h1>
          <p>Sessions, transcripts and search across every agent surface.</p>
        </div>
        <Card>
          <LoginForm next={next} />
        </Card>
      </div>
    </main>
  );
}
