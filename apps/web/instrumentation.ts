/** Runs once when the dashboard's server starts (Next.js instrumentation hook). */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { installFrontDoor } = await import('@/lib/client-address');
  installFrontDoor();
}
