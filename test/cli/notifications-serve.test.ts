import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { importDocument } from '../../src/import/import.service.ts';
import { exitOf, runHadir, startHadir } from '../helpers/cli.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey } from '../helpers/factories.ts';
import { TestReceiver } from '../helpers/receiver.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../helpers/stores.ts';
import { until } from '../helpers/until.ts';

describe.each(ENGINES)('a serving process on %s', (engine) => {
  it('delivers a signed notification of an import run by the CLI, and reports it in /metrics', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const store = await openTestStore(databaseUrl);
    const clock = new ManualClock(Date.now());
    const receiver = await TestReceiver.start();
    onTestFinished(async () => {
      await receiver.close();
      await store.close();
    });
    await importDocument(store, clock, {
      campaigns: [
        { id: 'nikah', slug: 'nikah', title: 'Nikah', eventDate: null, location: null, fields: [] },
      ],
    });
    const key = await createTestKey(store, clock, [{ campaignId: 'nikah', fields: [] }]);
    const env = { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '1' };
    const added = await runHadir(
      ['webhooks', 'add', '--key', key.id, '--url', receiver.url, '--json'],
      { databaseUrl, env },
    );
    expect(added.status).toBe(0);
    const { secret } = JSON.parse(added.stdout);

    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      env: { ...env, METRICS_PORT: '0' },
      ready: /^\{"url":"(http:\/\/[^"]+)".*"metricsUrl":"(http:\/\/[^"]+)"/m,
    });
    onTestFinished(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await exitOf(server.child);
    });
    const file = join(
      await import('node:os').then((os) => os.tmpdir()),
      `notify-${process.pid}-${engine}.json`,
    );
    writeFileSync(
      file,
      JSON.stringify({
        respondents: [
          {
            id: 'r1',
            campaignId: 'nikah',
            submittedAt: '2026-11-01T00:00:00Z',
            attendanceStatus: 'YES',
            answers: {},
          },
        ],
      }),
    );
    expect((await runHadir(['import', file], { databaseUrl })).status).toBe(0);
    await until(() => receiver.received.length > 0, 'the notification');
    const [got] = receiver.received;
    expect(
      new Webhook(secret).verify(got?.body ?? '', got?.headers as Record<string, string>),
    ).toMatchObject({
      type: 'respondents.changed',
      data: { campaignId: 'nikah', changed: 1, removed: 0 },
    });
    const metricsUrl = (server.match as unknown as string[])[2];
    // The outcome is counted once it is stored, a moment after the receiver answered.
    let metrics = '';
    await until(async () => {
      metrics = await (await fetch(metricsUrl as string)).text();
      return /hadir_notification_deliveries_total\{outcome="delivered"\} 1/.test(metrics);
    }, 'the delivery to be counted');
    expect(metrics).toMatch(/hadir_notification_queue_depth 0/);
    expect(metrics).toMatch(/^hadir_notification_oldest_undelivered_seconds 0$/m);
    expect(metrics).toMatch(/^hadir_notification_endpoints\{state="enabled"\} 1$/m);
    expect(metrics).toMatch(/^hadir_notification_endpoints\{state="failing"\} 0$/m);
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toBe(0);
  });
});
