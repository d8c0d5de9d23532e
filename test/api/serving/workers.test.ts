import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import type { Engine } from '../../../src/db/store.ts';
import { startServer } from '../../../src/serving/main.ts';
import { WORKERS, workerNamesFor } from '../../../src/serving/workers.ts';
import { createTestDatabaseUrl } from '../../helpers/stores.ts';

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
    const text = readFileSync(new URL('../../../docs/architecture.md', import.meta.url), 'utf8');
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

describe('what a process alone starts', () => {
  it.each(['sqlite', 'postgres'] as const)('on %s: every worker of the table', async (engine) => {
    const server = await startServer(
      loadConfig({
        DATABASE_URL: await createTestDatabaseUrl(engine),
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'silent',
      }),
    );
    try {
      expect(server.workers).toEqual(ALL);
    } finally {
      await server.close();
    }
  });
});

// What each worker of a cluster starts (WORKERS=2 on SQLite: the housekeeper and another) is
// read from their log lines in test/cli/operations.test.ts, beside its other checks of a cluster.
