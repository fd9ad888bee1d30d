import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@statehouse/source', ...defaultServerConditions] } },
  test: {
    name: 'client',
    include: ['test/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // Files start real API processes (apps/api/dist): one file at a time on 2 cores.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
