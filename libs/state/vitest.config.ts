import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@statehouse/source', ...defaultServerConditions] } },
  // Both dialects, real databases, and suites of processes running beside them on 2 cores: the
  // default 5 s per test is too tight for the largest cases (a 1 000-deep chain on PostgreSQL).
  test: { name: 'state', include: ['src/**/*.test.ts'], environment: 'node', pool: 'forks', testTimeout: 30_000 },
});
