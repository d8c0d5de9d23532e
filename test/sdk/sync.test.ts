import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HadirClient } from '../../packages/client/src/index.ts';
import { Mirror, runSync, type SyncOptions } from '../../packages/sync/src/index.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { purgeRemovalsBefore } from '../../src/removals/removals.repository.ts';

import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestKey, importRespondents, seedCampaign } from '../helpers/factories.ts';
import { createTestDatabaseUrl, ENGINES } from '../helpers/stores.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

const _DAY = 24 * 3_600_000;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString();

/** Every row an async source yields, in order. */
async function all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function* _fromArray<T>(rows: T[]): AsyncGenerator<T> {
  yield* rows;
}

describe.each(ENGINES)('hadir-sync mirroring into %s', (engine) => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;
  let next = 0;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await seedCampaign(t.store, t.clock, {
      id: 'pesta',
      fields: [
        { key: 'menu', type: 'RADIO' },
        { key: 'alergi', type: 'CHECKBOX' },
      ],
      respondents: Array.from({ length: 45 }, (_, i) => ({
        id: `p${String(i).padStart(3, '0')}`,
        submittedAt: at(Math.floor(i / 3)),
        answers: { menu: i % 2 ? 'Sate' : 'Soto', alergi: i % 5 ? [] : ['Kacang', 'Susu'] },
      })),
    });
    next = 45;
    ({ key: apiKey } = await createTestKey(t.store, t.clock, [
      { campaignId: 'pesta', fields: ['menu', 'alergi'] },
    ]));
  });
  afterAll(() => t.close());

  const options = (overrides: Partial<SyncOptions> = {}): SyncOptions => ({
    baseUrl,
    apiKey,
    campaigns: ['pesta'],
    full: false,
    limit: 10,
    ...overrides,
  });
  const mirrorUrl = async () =>
    engine === 'sqlite'
      ? `sqlite:${join(mkdtempSync(join(tmpdir(), 'hadir-mirror-')), 'mirror.sqlite')}`
      : createTestDatabaseUrl('postgres');

  /** The server's full data, as a fresh walk without since serves it. */
  async function serverRows() {
    const rows = [];
    for await (const row of new HadirClient({ baseUrl, apiKey }).respondents('pesta'))
      rows.push(row);
    return rows.map((row) => ({
      campaignId: 'pesta',
      id: row.id,
      submittedAt: row.submittedAt,
      attendanceStatus: row.attendanceStatus,
      fields: row.fields,
      removedAt: null,
    }));
  }

  it('ends equal to the server after rows are added and edited between runs', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      const first = await runSync(options(), { mirror });
      expect(first[0]).toMatchObject({ mode: 'first', since: null, rows: 45, pages: 5 });
      expect(await all(mirror.rows())).toEqual(await serverRows());

      await importRespondents(t.store, t.clock, 'pesta', [
        { id: 'p000', submittedAt: at(40), answers: { menu: 'Rendang' } },
        { id: `p${next++}`, submittedAt: at(41), answers: { menu: 'Sate' } },
        // A late row whose submittedAt lags behind the watermark: the changes feed names it.
        { id: `p${next++}`, submittedAt: at(13), answers: { menu: 'Soto' } },
      ]);
      const watermark = await mirror.changesWatermark('pesta');
      expect(watermark).not.toBeNull();
      const second = await runSync(options(), { mirror });
      // Only what changed is read again: two edits and a new row, in one page.
      expect(second[0]).toMatchObject({ mode: 'incremental', rows: 3, pages: 1 });
      expect(second[0]?.since).toBe(watermark);
      expect(await all(mirror.rows())).toEqual(await serverRows());
      expect(second[0]?.watermark).toBe(new Date(Date.parse(at(41))).toISOString());
    } finally {
      await mirror.close();
    }
  });

  it('ends equal to the server when rows are added and edited while it pages', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      let pages = 0;
      const busy: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (String(input).includes('/changes') && ++pages === 2) {
          await importRespondents(t.store, t.clock, 'pesta', [
            { id: 'p001', submittedAt: at(60), answers: { menu: 'Gado-gado' } },
            { id: `p${next++}`, submittedAt: at(61) },
          ]);
        }
        return response;
      };
      await runSync(options(), { mirror, client: { fetch: busy } });
      expect(await all(mirror.rows())).toEqual(await serverRows());
    } finally {
      await mirror.close();
    }
  });

  it('survives the server going away mid-sync: the next run completes', async () => {
    const proxy = await startTcpProxy(Number(new URL(baseUrl).port));
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      let pages = 0;
      const cutting: typeof fetch = async (input, init) => {
        if (String(input).includes('/changes') && ++pages === 3) await proxy.cut();
        return fetch(input, init);
      };
      const viaProxy = options({ baseUrl: `http://127.0.0.1:${proxy.port}` });
      await expect(
        runSync(viaProxy, {
          mirror,
          client: { fetch: cutting, maxRetries: 1, sleep: async () => {} },
        }),
      ).rejects.toThrow();
      expect(await mirror.watermark('pesta')).toBeNull();
      await proxy.restore();
      await runSync(viaProxy, { mirror });
      expect(await all(mirror.rows())).toEqual(await serverRows());
    } finally {
      await mirror.close();
      await proxy.close();
    }
  });

  it('is resumable: a run that fails part-way never moves the watermark, and the next run completes', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      let pages = 0;
      const dying: typeof fetch = async (input, init) => {
        if (String(input).includes('/changes') && ++pages === 3)
          throw new TypeError('fetch failed: ECONNRESET');
        return fetch(input, init);
      };
      await expect(
        runSync(options(), { mirror, client: { fetch: dying, maxRetries: 0 } }),
      ).rejects.toThrow('ECONNRESET');
      expect(await mirror.watermark('pesta')).toBeNull();
      expect((await all(mirror.rows())).length).toBe(20);

      let calls = 0;
      const flaky: typeof fetch = async (input, init) => {
        calls += 1;
        if (calls % 4 === 0)
          return new Response('{"error":{"code":"internal_error","message":"x"}}', { status: 500 });
        return fetch(input, init);
      };
      await runSync(options(), { mirror, client: { fetch: flaky, sleep: async () => {} } });
      const rows = await all(mirror.rows());
      expect(rows).toEqual(await serverRows());
      expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
      expect(await mirror.watermark('pesta')).toBe(
        rows
          .map((row) => row.submittedAt)
          .sort()
          .at(-1),
      );
    } finally {
      await mirror.close();
    }
  });

  it('clears a row deleted on the server at the next incremental run, from the removals feed', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      await runSync(options(), { mirror });
      const victim = `p${next++}`;
      await importRespondents(t.store, t.clock, 'pesta', [
        { id: victim, submittedAt: at(70), answers: { nama: 'Pergi' } },
      ]);
      await runSync(options(), { mirror });
      t.clock.advance(1_000);
      await importDocument(t.store, t.clock, { respondents: [{ id: victim, deleted: true }] });
      const incremental = await runSync(options(), { mirror });
      expect(incremental[0]).toMatchObject({ mode: 'incremental', removed: 1 });
      expect((await all(mirror.rows())).some((row) => row.id === victim)).toBe(false);
      const rows = await all(mirror.rows([], { includeRemoved: true }));
      const marker = rows.find((row) => row.id === victim);
      // Its id and when it left stay as a marker; the person's answers are gone.
      expect(marker).toMatchObject({
        removedAt: expect.any(String),
        fields: {},
        attendanceStatus: '',
      });
      const full = await runSync(options({ full: true }), { mirror });
      expect(full[0]).toMatchObject({ mode: 'full', removed: 0 });
      expect(
        rows.filter((row) => row.removedAt === null).map(({ removedAt: _, ...row }) => row),
      ).toEqual((await serverRows()).map(({ removedAt: _, ...row }) => row));
    } finally {
      await mirror.close();
    }
  });
  it('runs a full pass by itself, and says why, when the feed cannot vouch for its removals', async () => {
    const mirror = await Mirror.open(await mirrorUrl());
    try {
      await runSync(options(), { mirror });
      const victim = `p${next++}`;
      await importRespondents(t.store, t.clock, 'pesta', [{ id: victim, submittedAt: at(71) }]);
      await runSync(options(), { mirror });
      t.clock.advance(1_000);
      await importDocument(t.store, t.clock, { respondents: [{ id: victim, deleted: true }] });
      // The server forgets tombstones beyond the mirror's watermark: its removals are unknown.
      t.clock.advance(1_000);
      await purgeRemovalsBefore(t.store.db, t.clock.now());
      const result = await runSync(options(), { mirror });
      expect(result[0]).toMatchObject({ mode: 'full', removed: 1 });
      expect(result[0]?.fullBecause).toMatch(/no longer keeps removals since/);
      expect((await all(mirror.rows())).some((row) => row.id === victim)).toBe(false);
      // And the next run is incremental again.
      expect((await runSync(options(), { mirror }))[0]?.mode).toBe('incremental');
    } finally {
      await mirror.close();
    }
  });
});
