/**
 * The files `npm run test:more` runs and `npm test` leaves out: those that drive another program
 * Hadir ships beside or installs into (Chromium on the pages, npm installing the packages, nginx,
 * PgBouncer, Prometheus's rules, Redis, a streaming replica). Each takes seconds to start its
 * program; the behaviour they check behind it is tested in `npm test` against the app itself.
 */
export const MORE_FILES = [
  'test/browser/**/*.test.ts',
  'test/sdk/installed-packages.test.ts',
  'test/cli/production-install.test.ts',
  'test/api/serving/nginx-proxy.test.ts',
  'test/api/serving/pgbouncer.test.ts',
  'test/api/serving/read-replica.test.ts',
  'test/api/serving/replica-positions.test.ts',
  'test/api/serving/several-nodes.test.ts',
  'test/api/serving/redis.test.ts',
  'test/api/serving/dashboard-live.test.ts',
  'test/unit/alert-rules.test.ts',
];
