/**
 * One idle wait of a watch loop: resolves when the waker handed to `arm` is called (a wake-up
 * arrived), after `ms` (the poll), or when `signal` aborts (the reader left), whichever is first.
 * `arm` receives the waker while the wait lasts and `undefined` once it is over.
 */
export function sleepUntilWoken(
  ms: number,
  signal: AbortSignal,
  arm: (wake: (() => void) | undefined) => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      arm(undefined);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    arm(done);
    signal.addEventListener('abort', done, { once: true });
  });
}
