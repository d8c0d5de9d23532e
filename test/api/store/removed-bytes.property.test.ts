import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/db/connect.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { createIngestToken } from '../../../src/ingest/ingest-tokens.service.ts';
import { deleteCampaign, eraseRespondents } from '../../../src/removals/erasure.service.ts';
import { runRetention } from '../../../src/removals/retention.ts';
import { buildIngestApp } from '../../../src/serving/app.ts';
import { logCapture } from '../../helpers/app.ts';
import { runHadirInProcess } from '../../helpers/cli.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../../helpers/stores.ts';

const DAY = 24 * 3_600_000;
const CAMPAIGNS = ['nikah', 'reuni', 'seminar'] as const;
const PER_CAMPAIGN = 30;
const FIELDS = [
  { key: 'nama', label: 'Nama', type: 'TEXT' },
  { key: 'email', label: 'Email', type: 'EMAIL' },
  // A single-choice answer typed by one person is that person's data too (answer_counts).
  { key: 'pilihan', label: 'Pilihan', type: 'RADIO' },
  { key: 'catatan', label: 'Catatan', type: 'TEXTAREA' },
];

/** Every value one version of one respondent's row holds that no other row holds. */
function answersOf(id: string, version: number) {
  const tag = `${id}V${version}`;
  return {
    nama: `Nama${tag}Q`,
    email: `mail${tag}@contoh.id`.toLowerCase(),
    pilihan: `Opsi${tag}Q`,
    // Long answers of varying length move rows between pages, and some overflow a page.
    catatan: `Catatan${tag}Q ${'x'.repeat((version * 97 + id.length * 31) % 1500)}`,
  };
}

const markersOf = (answers: ReturnType<typeof answersOf>) => [
  answers.nama,
  answers.email,
  answers.pilihan,
  `Catatan${answers.nama.slice(4, -1)}Q`,
];

type Step =
  | { kind: 'import-deletion'; picks: number[] }
  | { kind: 'ingest-deletion'; picks: number[] }
  | { kind: 'erase-ids'; picks: number[] }
  | { kind: 'erase-value'; pick: number }
  | { kind: 'rewrite'; picks: number[] }
  | { kind: 'bring-back'; picks: number[] }
  | { kind: 'delete-campaign'; campaign: number }
  | { kind: 'retention' };

const picks = fc.array(fc.nat(), { minLength: 1, maxLength: 6 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('import-deletion' as const), picks }),
  fc.record({ kind: fc.constant('ingest-deletion' as const), picks }),
  fc.record({ kind: fc.constant('erase-ids' as const), picks }),
  fc.record({ kind: fc.constant('erase-value' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('rewrite' as const), picks }),
  fc.record({ kind: fc.constant('bring-back' as const), picks }),
  fc.record({ kind: fc.constant('delete-campaign' as const), campaign: fc.nat() }),
  fc.constant({ kind: 'retention' as const }),
);

/** The respondents as the test knows them: live (with their version) or gone. */
class Population {
  readonly version = new Map<string, number>();
  readonly campaignOf = new Map<string, string>();
  readonly live = new Set<string>();
  readonly deletedCampaigns = new Set<string>();
  readonly removedMarkers = new Set<string>();
  /** Erased by the operator: held erased against later versions (see erasure holds). */
  readonly held = new Set<string>();

  constructor() {
    for (const campaign of CAMPAIGNS) {
      for (let i = 0; i < PER_CAMPAIGN; i++) {
        const id = `${campaign}-${i}`;
        this.version.set(id, 0);
        this.campaignOf.set(id, campaign);
        this.live.add(id);
      }
    }
  }

  pickLive(picks: readonly number[]): string[] {
    const live = [...this.live].sort();
    if (live.length === 0) return [];
    return [...new Set(picks.map((pick) => live[pick % live.length] as string))];
  }

  pickGone(picks: readonly number[]): string[] {
    const gone = [...this.version.keys()]
      .filter((id) => !this.live.has(id))
      .filter((id) => !this.deletedCampaigns.has(this.campaignOf.get(id) as string))
      .sort();
    if (gone.length === 0) return [];
    return [...new Set(picks.map((pick) => gone[pick % gone.length] as string))];
  }

  current(id: string) {
    return answersOf(id, this.version.get(id) ?? 0);
  }

  /** Answers replaced by a newer version: they must leave the files at the next scrub. */
  readonly superseded = new Set<string>();

  /** The row's current answers are gone: their markers must leave the files. */
  forget(id: string): void {
    for (const marker of markersOf(this.current(id))) this.removedMarkers.add(marker);
    this.live.delete(id);
  }

  supersede(id: string): void {
    for (const marker of markersOf(this.current(id))) this.superseded.add(marker);
  }

  /** A scrub rebuilt the files: whatever was replaced before it is gone too. */
  scrubbed(): void {
    for (const marker of this.superseded) this.removedMarkers.add(marker);
    this.superseded.clear();
  }

  liveMarkers(): string[] {
    return [...this.live].flatMap((id) => markersOf(this.current(id)));
  }
}

const respondentRecord = (population: Population, id: string) => ({
  id,
  campaignId: population.campaignOf.get(id),
  submittedAt: new Date(
    Date.UTC(2026, 9, 1) + (population.version.get(id) ?? 0) * 60_000,
  ).toISOString(),
  attendanceStatus: 'YES',
  answers: population.current(id),
});

async function seed(store: Store, clock: ManualClock, population: Population): Promise<void> {
  await importDocument(store, clock, {
    campaigns: CAMPAIGNS.map((id, index) => ({
      id,
      slug: id,
      title: id,
      // Only the seminar is over, long enough ago for retention to take it.
      eventDate: index === 2 ? '2026-01-10T03:00:00Z' : '2027-06-01T03:00:00Z',
      location: null,
      fields: FIELDS,
    })),
    respondents: [...population.live].map((id) => respondentRecord(population, id)),
  });
}

async function apply(
  store: Store,
  url: string,
  clock: ManualClock,
  population: Population,
  next: Step,
  ingest: () => Promise<{ app: FastifyInstance; token: string }>,
): Promise<void> {
  clock.advance(60_000);
  switch (next.kind) {
    case 'import-deletion': {
      const ids = population.pickLive(next.picks);
      if (ids.length === 0) return;
      await importByCli(url, clock, { respondents: ids.map((id) => ({ id, deleted: true })) });
      for (const id of ids) population.forget(id);
      population.scrubbed();
      return;
    }
    case 'ingest-deletion': {
      const ids = population.pickLive(next.picks);
      if (ids.length === 0) return;
      const { app, token } = await ingest();
      const answer = await app.inject({
        method: 'POST',
        url: '/ingest/v1/batches',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/x-ndjson',
          'idempotency-key': `deletion-${clock.now()}`,
        },
        payload: ids.map((id) => JSON.stringify({ type: 'deletion', respondentId: id })).join('\n'),
      });
      expect(answer.statusCode).toBe(200);
      for (const id of ids) population.forget(id);
      // The ingest API scrubs a while after (at the latest when it closes, before the search).
      population.scrubbed();
      return;
    }
    case 'erase-ids': {
      const ids = population.pickLive(next.picks);
      if (ids.length === 0) return;
      const named = ids.map((id) => ({ campaignId: population.campaignOf.get(id) as string, id }));
      await eraseRespondents(store, clock, named, 'ids');
      for (const id of ids) {
        population.forget(id);
        population.held.add(id);
      }
      population.scrubbed();
      return;
    }
    case 'erase-value': {
      const [id] = population.pickLive([next.pick]);
      if (id === undefined) return;
      const named = [{ campaignId: population.campaignOf.get(id) as string, id }];
      await eraseRespondents(store, clock, named, 'value');
      population.forget(id);
      population.held.add(id);
      population.scrubbed();
      return;
    }
    case 'rewrite':
    case 'bring-back': {
      const ids =
        next.kind === 'rewrite' ? population.pickLive(next.picks) : population.pickGone(next.picks);
      if (ids.length === 0) return;
      for (const id of ids) {
        // An erased respondent sent again stays erased: the import keeps it out.
        const held = population.held.has(id);
        if (!held && population.live.has(id)) population.supersede(id);
        population.version.set(id, (population.version.get(id) ?? 0) + 1);
        if (!held) population.live.add(id);
      }
      await importByCli(url, clock, {
        respondents: ids.map((id) => respondentRecord(population, id)),
      });
      return;
    }
    case 'delete-campaign': {
      const campaign = CAMPAIGNS[next.campaign % CAMPAIGNS.length] as string;
      if (population.deletedCampaigns.has(campaign)) return;
      await deleteCampaign(store, clock, campaign);
      population.deletedCampaigns.add(campaign);
      for (const id of [...population.live]) {
        if (population.campaignOf.get(id) === campaign) population.forget(id);
      }
      population.scrubbed();
      return;
    }
    case 'retention': {
      const result = await runRetention(
        store,
        clock,
        { daysAfterEvent: 30, removalsDays: 90 },
        true,
      );
      for (const { campaignId } of result.campaigns) {
        for (const id of [...population.live]) {
          if (population.campaignOf.get(id) === campaignId) population.forget(id);
        }
      }
      if (result.campaigns.length > 0) population.scrubbed();
      return;
    }
  }
}

/** An import as the operator runs it: the CLI scrubs what it removed. */
async function importByCli(url: string, clock: ManualClock, document: unknown): Promise<void> {
  const result = await runHadirInProcess(['import', '-', '--format', 'json'], {
    databaseUrl: url,
    clock,
    input: JSON.stringify(document),
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
}

/** Every byte of the database's files, once the store is closed (SQLite) or checkpointed. */
async function databaseBytes(store: Store, url: string): Promise<string> {
  if (store.engine === 'sqlite') {
    await store.close();
    const path = url.slice('sqlite:'.length);
    return ['', '-wal', '-journal']
      .map((suffix) => `${path}${suffix}`)
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString('latin1'))
      .join('');
  }
  await sql`CHECKPOINT`.execute(store.db);
  const place = await sql<{ dir: string; oid: number }>`SELECT
    current_setting('data_directory') AS dir,
    (SELECT oid FROM pg_database WHERE datname = current_database()) AS oid`.execute(store.db);
  await store.close();
  const { dir, oid } = place.rows[0] as { dir: string; oid: number };
  const folder = join(dir, 'base', String(oid));
  return readdirSync(folder)
    .map((name) => join(folder, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => readFileSync(file).toString('latin1'))
    .join('');
}

describe.each(ENGINES)('no byte of a removed answer stays in the files, on %s', (engine) => {
  it('after any sequence of import and ingest deletions, erasures, rewrites, campaign deletions and retention', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 7 }), async (steps) => {
        const url = await createTestDatabaseUrl(engine);
        // The store that made the database also removes from it: no setting of its connection
        // (migrations included) may leave deleted bytes behind.
        const store = await openTestStore(url);
        const clock = new ManualClock('2026-10-02T00:00:00Z');
        const population = new Population();
        let bytes: string;
        // The platform's ingest API, as a serving process has it, made when a step first needs it.
        let ingestApp: { app: FastifyInstance; token: string } | undefined;
        const ingest = async () => {
          if (!ingestApp) {
            const { token } = await createIngestToken(store, clock, 'platform', 'operator');
            const app = await buildIngestApp({
              store,
              clock,
              logger: logCapture().logger,
              config: { trustProxy: false },
              // Later than any run: the scrub is the one its close makes.
              ingest: { maxConcurrentBatches: 1, scrubAfterMs: 3_600_000 },
            });
            ingestApp = { app, token };
          }
          return ingestApp;
        };
        try {
          await seed(store, clock, population);
          // Retention's clock: the seminar (10 January) is 30 days past by then.
          clock.advance(DAY);
          for (const next of steps) await apply(store, url, clock, population, next, ingest);
          // PostgreSQL leaves removed rows in free space until the operator compacts.
          if (engine === 'postgres') {
            expect(await store.scrubRemovals()).toBe('until_compaction');
            await store.compact();
            population.scrubbed();
          }
        } finally {
          await ingestApp?.app.close();
          bytes = await databaseBytes(store, url);
        }
        const found = [...population.removedMarkers].filter((marker) => bytes.includes(marker));
        expect(found).toEqual([]);
        // The search would find them: every live answer is there.
        const missing = population.liveMarkers().filter((marker) => !bytes.includes(marker));
        expect(missing).toEqual([]);
      }),
      {
        numRuns: engine === 'sqlite' ? 12 : 6,
        // Sequences found to leave bytes behind before rows were rebuilt after a removal.
        examples: [
          // An erased person sent again, then rewritten and erased again: held erased throughout.
          [
            [
              { kind: 'erase-value', pick: 0 },
              { kind: 'bring-back', picks: [0] },
              { kind: 'rewrite', picks: [0] },
              { kind: 'erase-value', pick: 0 },
            ],
          ],
          [
            [
              { kind: 'rewrite', picks: [33, 49] },
              { kind: 'rewrite', picks: [0, 1, 2] },
              { kind: 'ingest-deletion', picks: [0, 1] },
            ],
          ],
          [
            [
              { kind: 'rewrite', picks: [33, 49] },
              { kind: 'retention' },
              { kind: 'import-deletion', picks: [0] },
            ],
          ],
          [
            [
              { kind: 'import-deletion', picks: [1018464854, 0] },
              { kind: 'delete-campaign', campaign: 2 },
              { kind: 'import-deletion', picks: [696759407, 1980901971, 0] },
              { kind: 'delete-campaign', campaign: 1 },
            ],
          ],
        ],
      },
    );
  }, 120_000);
});
