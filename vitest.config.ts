import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The workspace packages are tested from their sources (see their "hadir-source" export).
const sources = { conditions: ['hadir-source'] };

export default defineConfig({
  resolve: sources,
  ssr: { resolve: sources },
  test: {
    pool: 'forks',
    // Most of a test file's time is spent waiting (on PostgreSQL, a spawned server, a socket), so
    // one file more than there are cores keeps them busy.
    maxWorkers: availableParallelism() + 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // What a test file started ends with the file, even when a test failed or timed out.
    setupFiles: ['test/helpers/kill-owned-processes.ts'],
    projects: [
      {
        extends: true,
        // Pure code and SQLite files: no database server to start.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        // Real engines, servers and browsers: one PostgreSQL cluster for the run (see global-setup).
        test: {
          name: 'integration',
          include: ['test/{api,cli,sdk,browser}/**/*.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
    ],
  },
});
