import type { Metadata, Viewport } from 'next';
import { cookies } from 'next/headers';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
// Global layers, in cascade order: tokens, base elements, primitives, shared page patterns, the shell.
// Each feature's own styles are imported by its pieces in app/ui/<feature>/.
import '@/styles/tokens.css';
import '@/styles/base.css';
import '@/app/ui/common/ui.css';
import '@/app/ui/common/patterns.css';
import '@/app/ui/shell/shell.css';
import { parseTheme, THEME_COOKIE, themeAttribute } from '@/lib/theme';

export const metadata: Metadata = {
  title: { default: 'Statehouse', template: '%s · Statehouse' },
  description: 'Sessions, transcripts and search across every agent surface.',
  robots: { index: false, follow: false },
};

export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  colorScheme: 'light dark',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request, so its scripts carry that request's CSP nonce (proxy.ts);
  // a page prerendered at build time would have none and be blocked.
  await connection();
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" data-theme={themeAttribute(theme)}>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        {children}
      </body>
    </html>
  );
}
