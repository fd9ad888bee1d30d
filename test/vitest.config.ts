import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'e2e',
    include: ['browser/**/*.test.ts', 'web/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // One real API + dashboard per file; files must not compete for CPU on a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
