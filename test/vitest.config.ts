import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'e2e',
    include: [
      'browser/**/*.test.ts',
      'web/**/*.test.ts',
      'topology/**/*.test.ts',
      'python/**/*.test.ts',
      'docs/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    environment: 'node',
    pool: 'forks',
    // Real processes per file (API, dashboard, replicas); files must not compete for CPU on 2 cores.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
