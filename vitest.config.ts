import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { FileTimings, LongestFirst } from './test/helpers/file-timings.ts';
import { MORE_FILES } from './test/more-files.ts';

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
    // The longest files first, from the last run's timings (see file-timings.ts).
    sequence: { sequencer: LongestFirst },
    reporters: ['default', new FileTimings()],
    projects: [
      {
        extends: true,
        // Pure code and SQLite files: no database server to start.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: MORE_FILES },
      },
      {
        extends: true,
        // Real engines and servers: one PostgreSQL cluster for the run (see global-setup).
        test: {
          name: 'integration',
          include: ['test/{api,cli,sdk}/**/*.test.ts'],
          exclude: MORE_FILES,
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
      {
        extends: true,
        // What `npm test` leaves to `npm run test:more`: other programs' parts (see more-files.ts).
        test: {
          name: 'more',
          include: MORE_FILES,
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
    ],
  },
});
