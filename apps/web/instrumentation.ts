/** Runs once when the dashboard's server starts (Next.js instrumentation hook). */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { loadWebConfigOrExit } = await import('@/lib/env');
  const { installFrontDoor } = await import('@/lib/client-address');
  // A bad value stops the dashboard here, naming the variable, rather than at the first request.
  installFrontDoor(loadWebConfigOrExit().STATEHOUSE_WEB_TRUSTED_PROXIES);
}
