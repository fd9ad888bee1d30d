import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { niceOf } from '../testing/thread-nice.js';
import { BACKGROUND_THREAD_NICE } from './background-thread.js';
import { startWorker } from './worker-program.js';

describe.runIf(process.platform === 'linux')('a background worker thread', () => {
  it('runs at the background nice value; the thread that started it keeps its own', async () => {
    const before = niceOf(readFileSync('/proc/thread-self/stat', 'utf8'));
    const worker = startWorker(new URL('../testing/index.ts', import.meta.url).href, 'background-thread-probe.worker');
    const stat = await new Promise<string>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(niceOf(stat)).toBe(Math.max(before, BACKGROUND_THREAD_NICE));
    expect(niceOf(readFileSync('/proc/thread-self/stat', 'utf8'))).toBe(before);
  });
});
