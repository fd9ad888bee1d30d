import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@statehouse/source', ...defaultServerConditions] } },
  test: { name: 'contracts', include: ['src/**/*.test.ts'], environment: 'node', pool: 'forks' },
});
