import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/store.ts';
import { WORKERS, type WorkerName, workerNamesFor } from '../../src/serving/workers.ts';
import { exitOf, startHadir } from '../helpers/cli.ts';
import { createTestDatabaseUrl } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

const EVERY_PROCESS = ['bucket-deliveries'];
const ALL = [
  'webhook-sender',
  'key-expiry-notices',
  'webhook-log-trim',
  'ingest-batch-trim',
  'retention',
  'bucket-deliveries',
];

describe('the table of workers', () => {
  it('places each worker as the architecture says, by engine and role', () => {
    expect(Object.keys(WORKERS)).toEqual(ALL);
    const of = (engine: Engine, role: 'alone' | 'cluster worker', housekeeper: boolean) =>
      workerNamesFor({ engine, role, housekeeper });
    expect(of('sqlite', 'alone', true)).toEqual(ALL);
    expect(of('postgres', 'alone', true)).toEqual(ALL);
    expect(of('sqlite', 'cluster worker', true)).toEqual(ALL);
    expect(of('sqlite', 'cluster worker', false)).toEqual(EVERY_PROCESS);
    expect(of('postgres', 'cluster worker', false)).toEqual(ALL);
  });

  it('is the table docs/architecture.md shows', () => {
    const text = readFileSync('docs/architecture.md', 'utf8');
    const rows = [...text.matchAll(/^\| `([a-z-]+)` \| `([a-z]+)\/` \| ([^|]+) \| ([^|]+) \|$/gm)];
    expect(
      rows.map(([, name, owner, placement, does]) => [
        name,
        owner,
        placement?.trim(),
        does?.trim(),
      ]),
    ).toEqual(
      Object.entries(WORKERS).map(([name, worker]) => [
        name,
        worker.owner,
        worker.placement,
        worker.does,
      ]),
    );
  });
});

/** The workers each serving process of `serve` says it started, one list per process. */
async function startedWorkers(engine: Engine, workers: number): Promise<WorkerName[][]> {
  const server = await startHadir(['serve', '--port', '0', '--json'], {
    databaseUrl: await createTestDatabaseUrl(engine),
    env: { WORKERS: String(workers), LOG_LEVEL: 'info' },
    ready: /^\{"url":"(http:\/\/[^"]+)"/m,
  });
  try {
    const lines = () =>
      server
        .output()
        .split('\n')
        .filter((line) => line.includes('"workers started"'))
        .map((line) => JSON.parse(line) as { workers: WorkerName[] });
    await until(() => lines().length === workers, `${workers} processes to start their workers`);
    return lines().map((line) => line.workers);
  } finally {
    server.child.kill('SIGTERM');
    await exitOf(server.child);
  }
}

describe('what each kind of process starts', () => {
  it('on SQLite: everything alone; in a cluster, the housekeeper everything and the others only what claims guard', async () => {
    const [alone, cluster] = await Promise.all([
      startedWorkers('sqlite', 1),
      startedWorkers('sqlite', 2),
    ]);
    expect(alone).toEqual([ALL]);
    expect(cluster.sort((a, b) => b.length - a.length)).toEqual([ALL, EVERY_PROCESS]);
  });

  it('on PostgreSQL: everything in every process', async () => {
    const [alone, cluster] = await Promise.all([
      startedWorkers('postgres', 1),
      startedWorkers('postgres', 2),
    ]);
    expect(alone).toEqual([ALL]);
    expect(cluster).toEqual([ALL, ALL]);
  });
});
