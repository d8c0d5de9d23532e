import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace packages are tested from their sources (see their "hadir-source" export).
  resolve: { conditions: ['hadir-source'] },
  ssr: { resolve: { conditions: ['hadir-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
