import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openStore } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { startPostgresCluster } from './postgres-cluster.ts';
import { startRedisServer } from './redis-server.ts';

export const TEMPLATE_DATABASE = 'hadir_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the run's cluster, without a database name. */
    postgresServer: string;
    /** The run's redis-server when HADIR_TEST_REDIS=1 (rate limits then count there). */
    redisServer: string | undefined;
  }
}

/**
 * One PostgreSQL cluster for the whole run, with a migrated template each test file copies; and
 * with HADIR_TEST_REDIS=1 one redis-server, which every test app counts rate limits in.
 */
export default async function setup(project: TestProject) {
  const redis = process.env.HADIR_TEST_REDIS === '1' ? await startRedisServer() : undefined;
  project.provide('redisServer', redis?.url);
  const cluster = await startPostgresCluster();
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const template = openStore(cluster.url(TEMPLATE_DATABASE));
  await migrateToLatest(template);
  await template.close();
  project.provide('postgresServer', cluster.url(''));
  return async () => {
    await cluster.stop();
    await redis?.stop();
  };
}
