import { execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { type ProcessSettings, settingsFor } from '../../src/process-memory.ts';
import { exitOf, startHadir, TEST_SECRET_ENV } from '../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

describe('SIGTERM while a request is in flight (PostgreSQL)', () => {
  let databaseUrl: string;
  let key: string;
  let admin: pg.Client;

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('postgres');
    const store = await openTestStore(databaseUrl);
    await seedCampaign(store, systemClock, { id: 'c' });
    key = (await createTestKey(store, systemClock, [{ campaignId: 'c', fields: [] }])).key;
    await store.close();
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
  });

  it('finishes the request, refuses new connections, and exits 0', async () => {
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      ready: /^\{"url":"(http:\/\/[^"]+)",/m,
    });
    // Whatever happens below, the server does not outlive the test.
    onTestFinished(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    const url = server.match[1] as string;
    // Holding this lock keeps the request waiting inside the server for as long as the test likes.
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
    const slow = fetch(`${url}/developer/v1/campaigns/c/summary`, {
      headers: { authorization: `Bearer ${key}` },
    });
    // (The waiting statement may still show its predecessor's text: the lock is taken at parse.)
    await until(async () => {
      const waiting = await admin.query(
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
      );
      return (waiting.rowCount ?? 0) > 0;
    }, 'the request to wait on the lock');

    server.child.kill('SIGTERM');
    await until(async () => {
      try {
        await fetch(`${url}/healthz`);
        return false;
      } catch (error) {
        return /ECONNREFUSED/.test(String((error as Error).cause ?? error));
      }
    }, 'new connections to be refused');
    expect(server.child.exitCode).toBeNull();

    await admin.query('COMMIT');
    const response = await slow;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { campaign: { id: string } }).campaign.id).toBe('c');
    expect(await exitOf(server.child)).toBe(0);
  });
});

describe.each([1, 2])('metrics on their own port, with WORKERS=%i', (workers) => {
  it('counts requests by route and status, is not served publicly, and stops with status 0', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      env: { METRICS_PORT: '0', WORKERS: String(workers) },
      ready: /^\{"url":"(http:\/\/[^"]+)".*"metricsUrl":"(http:\/\/[^"]+)"/m,
    });
    try {
      const [, url, metricsUrl] = server.match as unknown as [string, string, string];
      for (let n = 0; n < 4; n++) {
        expect((await fetch(`${url}/developer/v1/campaigns`)).status).toBe(401);
      }
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      const text = await (await fetch(metricsUrl)).text();
      // With two workers the primary adds up what each worker counted.
      expect(text).toContain(
        'hadir_http_requests_total{route="/developer/v1/campaigns",method="GET",status="401"} 4',
      );
      expect(text).toMatch(/^hadir_http_request_duration_seconds_bucket\{/m);
      expect(text).toContain('hadir_rate_limit_rejections_total');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await exitOf(server.child)).toBe(0);
  });
});

describe('the compiled server (npm run build:server)', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const outDir = `dist-test-${process.pid}`;
  afterAll(() => rmSync(join(root, outDir), { recursive: true, force: true }));

  it('builds, serves the data API and the reference, and stops with status 0', async () => {
    // The same compiler settings as the build, into a folder of this test's own.
    await run('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', outDir], root);
    await run(process.execPath, ['scripts/copy-assets.mjs', outDir], root);
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const store = await openTestStore(databaseUrl);
    await seedCampaign(store, systemClock, { id: 'c' });
    const { key } = await createTestKey(store, systemClock, [{ campaignId: 'c', fields: [] }]);
    await store.close();

    const child = spawn(
      process.execPath,
      [join(outDir, 'src/cli/main.js'), 'serve', '--port', '0', '--json'],
      {
        cwd: root,
        env: { ...process.env, ...TEST_SECRET_ENV, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          const match = /"url":"(http:\/\/[^"]+)"/.exec(chunk.toString());
          if (match) resolve(match[1] as string);
        });
        child.once('exit', () => reject(new Error('the compiled server exited')));
      });
      const campaigns = await fetch(`${url}/developer/v1/campaigns`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(campaigns.status).toBe(200);
      expect(((await campaigns.json()) as { data: Array<{ id: string }> }).data[0]?.id).toBe('c');
      expect((await fetch(`${url}/developer/v1/skill.zip`)).status).toBe(200);
      // It started over with its memory settings, on the same process id (see process-memory.ts).
      const { semiSpaceMb, mallocArenas } = settingsFor('serve', process.env) as ProcessSettings;
      const commandLine = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      expect(commandLine).toContain(`--max-semi-space-size=${semiSpaceMb}`);
      const environment = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
      expect(environment).toContain(`MALLOC_ARENA_MAX=${mallocArenas}`);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exitOf(child)).toBe(0);
  }, 120_000);
});

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd }, (error, _stdout, stderr) =>
      error ? reject(new Error(`${command} failed: ${stderr || error.message}`)) : resolve(),
    );
  });
}
