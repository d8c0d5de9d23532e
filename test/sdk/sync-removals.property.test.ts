import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HadirClient } from '../../packages/client/src/index.ts';
import { Mirror, type MirrorRow, runSync } from '../../packages/sync/src/index.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { eraseRespondents } from '../../src/removals/erasure.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestKey } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/stores.ts';

const CAMPAIGNS = ['a', 'b'] as const;
const IDS = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
/** `secret` is answered but outside the allow-list: it must never reach the mirror. */
const ALLOWED = ['nama', 'menu'];

type Step =
  | { kind: 'write'; campaign: (typeof CAMPAIGNS)[number]; id: string; menu: string }
  | { kind: 'delete'; id: string }
  | { kind: 'erase'; id: string }
  | { kind: 'delete-campaign'; campaign: (typeof CAMPAIGNS)[number] }
  | { kind: 'sync' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    campaign: fc.constantFrom(...CAMPAIGNS),
    id: fc.constantFrom(...IDS),
    menu: fc.constantFrom('Sate', 'Soto', 'Rendang'),
  }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.constantFrom(...IDS) }),
  fc.record({ kind: fc.constant('erase' as const), id: fc.constantFrom(...IDS) }),
  fc.record({
    kind: fc.constant('delete-campaign' as const),
    campaign: fc.constantFrom(...CAMPAIGNS),
  }),
  fc.constant({ kind: 'sync' as const }),
);

async function all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe.each(ENGINES)('a mirror kept by incremental runs, against a %s source', (engine) => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;
  let minute = 0;
  let run = 0;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await writeCampaigns();
    ({ key: apiKey } = await createTestKey(
      t.store,
      t.clock,
      CAMPAIGNS.map((campaignId) => ({ campaignId, fields: ALLOWED })),
      { expiresAt: t.clock.now() + 10 * 365 * 24 * 3_600_000 },
    ));
  });
  afterAll(() => t.close());

  /** Both campaigns, live (a deleted one is created again). */
  function writeCampaigns() {
    return importDocument(t.store, t.clock, {
      campaigns: CAMPAIGNS.map((id) => ({
        id,
        slug: id,
        title: id,
        eventDate: null,
        location: null,
        fields: ['nama', 'menu', 'secret'].map((key) => ({ key, label: key, type: 'TEXT' })),
      })),
    });
  }

  async function apply(current: Step): Promise<void> {
    t.clock.advance(1_000);
    switch (current.kind) {
      case 'write':
        minute += 1;
        await writeCampaigns();
        await importDocument(t.store, t.clock, {
          respondents: [
            {
              id: current.id,
              campaignId: current.campaign,
              submittedAt: new Date(Date.UTC(2026, 10, 1) + minute * 60_000).toISOString(),
              attendanceStatus: 'YES',
              answers: { nama: `Tamu ${current.id}`, menu: current.menu, secret: 'rahasia' },
            },
          ],
        });
        return;
      case 'delete':
        await importDocument(t.store, t.clock, {
          respondents: [{ id: current.id, deleted: true }],
        });
        return;
      case 'erase': {
        const row = await t.store.db
          .selectFrom('respondents')
          .select(['id', 'campaign_id'])
          .where('id', '=', current.id)
          .executeTakeFirst();
        if (row) {
          await eraseRespondents(
            t.store,
            t.clock,
            [{ campaignId: row.campaign_id, id: row.id }],
            'ids',
          );
        }
        return;
      }
      case 'delete-campaign':
        await importDocument(t.store, t.clock, {
          campaigns: [{ id: current.campaign, deleted: true }],
        });
        return;
      case 'sync':
        return;
    }
  }

  /** What the key may read at the source, as a fresh walk serves it. */
  async function readable(): Promise<Array<Omit<MirrorRow, 'removedAt'>>> {
    const client = new HadirClient({ baseUrl, apiKey });
    const rows: Array<Omit<MirrorRow, 'removedAt'>> = [];
    for (const campaign of await client.campaigns()) {
      for await (const row of client.respondents(campaign.id)) {
        rows.push({ campaignId: campaign.id, ...row });
      }
    }
    return rows.sort((x, y) => (x.campaignId + x.id < y.campaignId + y.id ? -1 : 1));
  }

  async function expectExact(mirror: Mirror): Promise<void> {
    const kept = await all(mirror.rows([], { includeRemoved: true }));
    const live = kept
      .filter((row) => row.removedAt === null)
      .map(({ removedAt: _, ...row }) => row)
      .sort((x, y) => (x.campaignId + x.id < y.campaignId + y.id ? -1 : 1));
    expect(live).toEqual(await readable());
    for (const row of kept.filter((candidate) => candidate.removedAt !== null)) {
      expect(row.fields).toEqual({});
      expect(row.attendanceStatus).toBe('');
    }
  }

  it('equals what the key may read after every run, and holds nothing of anyone removed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 12 }), async (steps) => {
        run += 1;
        const mirror = await Mirror.open(
          `sqlite:${join(mkdtempSync(join(tmpdir(), `hadir-history-${run}-`)), 'mirror.sqlite')}`,
        );
        try {
          const sync = () =>
            runSync(
              {
                baseUrl,
                apiKey,
                campaigns: [],
                full: false,
                limit: 3,
              },
              { mirror },
            );
          await sync();
          await expectExact(mirror);
          for (const current of steps) {
            await apply(current);
            if (current.kind === 'sync') {
              const results = await sync();
              // No full pass is needed to follow removals.
              expect(
                results.filter(
                  (result) =>
                    result.mode === 'full' && !result.fullBecause?.includes('can no longer read'),
                ),
              ).toEqual([]);
              await expectExact(mirror);
            }
          }
          await sync();
          await expectExact(mirror);
        } finally {
          await mirror.close();
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
