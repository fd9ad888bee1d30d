import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['libs/contracts', 'libs/state', 'apps/api', 'clients/typescript', 'test'],
  },
});
