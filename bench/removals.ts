import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror, runSync } from '../packages/sync/src/index.ts';
import { systemClock } from '../src/clock.ts';
import { type Engine, openStore } from '../src/db/connect.ts';
import { importRecords } from '../src/import/import.service.ts';
import type { ImportItem } from '../src/import/import-sources.ts';
import { stampChanges } from '../src/journal/change-stamps.repository.ts';
import { removeRespondents } from '../src/removals/removals.repository.ts';
import { clientHeaders, LIMIT, PAGE_ONE_PATH, serverEnv } from './cases.ts';
import { inTurn, type Load, type Pair } from './load.ts';
import { startHadir } from './processes.ts';
import { BIG_CAMPAIGN, BIG_CAMPAIGN_ROWS } from './seed.ts';

/** How many respondents of the big campaign leave before the incremental sync. */
export const REMOVED = 1_000;

export interface RemovalsRow {
  engine: Engine;
  /** Requests of the incremental hadir-sync run after the removals, by kind. */
  syncRequests: { changes: number; removals: number; respondents: number; other: number };
  /** What R5 promises: ceil(REMOVED / 200) removal pages, one respondents page (nothing changed). */
  expectedRemovalPages: number;
  syncSeconds: number;
  rowsCleared: number;
  /** Respondents page 1 (a) against removals page 1 (b), loaded in turn, uncached. */
  pageAgainstRemovals: Pair;
}

/**
 * R5 on the bench's million rows: REMOVED respondents of the big campaign leave, a mirror that
 * was exact before (its watermarks set as a finished full pass leaves them) runs one incremental
 * hadir-sync, and the requests it makes are counted: the removals feed's pages, not a re-read.
 * Then a removals page and a respondents page are loaded in turn on one server. The removed rows
 * are imported again at the end (which forgets their tombstones), so the data set is as seeded.
 */
export async function measureRemovals(options: {
  engine: Engine;
  databaseUrl: string;
  key: string;
  pairs: { rounds: number; seconds: number; warmupSeconds: number };
  log: (line: string) => void;
}): Promise<RemovalsRow> {
  const { engine, databaseUrl, key, log } = options;
  const store = openStore(databaseUrl);
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-mirror-'));
  const step = Math.floor(BIG_CAMPAIGN_ROWS / REMOVED);
  const leaving = await store.db
    .selectFrom('respondents')
    .selectAll()
    .where('campaign_id', '=', BIG_CAMPAIGN)
    .orderBy('id')
    .execute()
    .then((rows) => rows.filter((_, index) => index % step === 0).slice(0, REMOVED));
  const server = await startHadir(serverEnv(databaseUrl, false));
  try {
    const headers = clientHeaders(key);
    const base = `${server.url}/developer/v1/campaigns/${BIG_CAMPAIGN}`;
    // The state a finished full pass leaves: its watermarks, taken before anyone left.
    const before = await fetch(`${base}/removals?limit=1`, { headers });
    const until = ((await before.json()) as { meta: { until: string } }).meta.until;
    const newest = await store.db
      .selectFrom('respondents')
      .select((eb) => eb.fn.max('submitted_at').as('newest'))
      .where('campaign_id', '=', BIG_CAMPAIGN)
      .executeTakeFirstOrThrow();
    const mirror = await Mirror.open(`sqlite:${join(folder, 'mirror.sqlite')}`);
    for (const row of leaving) {
      await mirror.applyChanges(
        BIG_CAMPAIGN,
        [
          {
            type: 'upsert',
            id: row.id,
            changedAt: until,
            respondent: {
              id: row.id,
              submittedAt: new Date(Number(row.submitted_at)).toISOString(),
              attendanceStatus: row.attendance_status,
              fields: {},
            },
          },
        ],
        { seenPass: null, checkpoint: null },
      );
    }
    await mirror.finishSync(BIG_CAMPAIGN, {
      watermark: new Date(Number(newest.newest)).toISOString(),
      fullAt: new Date().toISOString(),
      changesWatermark: until,
    });

    await store.db.transaction().execute(async (trx) => {
      await removeRespondents(
        trx,
        leaving.map((row) => row.id),
      );
      await stampChanges(trx, store.engine, () => Date.now());
    });

    const counts = { changes: 0, removals: 0, respondents: 0, other: 0 };
    const counting: typeof fetch = (input, init) => {
      const path = new URL(String(input instanceof Request ? input.url : input)).pathname;
      if (path.endsWith('/changes')) counts.changes += 1;
      else if (path.endsWith('/removals')) counts.removals += 1;
      else if (path.endsWith('/respondents')) counts.respondents += 1;
      else counts.other += 1;
      return fetch(input, { ...init, headers: { ...init?.headers, 'x-forwarded-proto': 'https' } });
    };
    const started = performance.now();
    const [result] = await runSync(
      {
        baseUrl: server.url,
        apiKey: key,
        campaigns: [BIG_CAMPAIGN],
        full: false,
        limit: LIMIT,
      },
      { mirror, client: { fetch: counting } },
    );
    const syncSeconds = (performance.now() - started) / 1000;
    await mirror.close();
    log(
      `  ${engine}: incremental sync after ${REMOVED} removals: ${counts.changes} changes pages, ${counts.removals} removal pages, ${counts.respondents} respondents pages, ${counts.other} other requests, ${syncSeconds.toFixed(2)} s`,
    );

    const pageOne: Load = { path: PAGE_ONE_PATH, headers, expectStatus: 200 };
    const removalsPage: Load = {
      path: `/developer/v1/campaigns/${BIG_CAMPAIGN}/removals?limit=${LIMIT}`,
      headers,
      expectStatus: 200,
    };
    const pageAgainstRemovals = await inTurn(
      { server, request: pageOne },
      { server, request: removalsPage },
      options.pairs,
    );
    log(
      `  ${engine}: respondents page 1 ${pageAgainstRemovals.a.requestsPerSecond.toFixed(0)}/s (p50 ${pageAgainstRemovals.a.p50Ms} ms), removals page ${pageAgainstRemovals.b.requestsPerSecond.toFixed(0)}/s (p50 ${pageAgainstRemovals.b.p50Ms} ms)`,
    );
    return {
      engine,
      syncRequests: counts,
      expectedRemovalPages: Math.ceil(REMOVED / LIMIT),
      syncSeconds,
      rowsCleared: result?.removed ?? 0,
      pageAgainstRemovals,
    };
  } finally {
    await server.stop();
    // As seeded again: the rows come back through the import, which forgets their tombstones.
    const items: ImportItem[] = leaving.map((row, index) => ({
      kind: 'respondent',
      place: `bench row ${index}`,
      record: {
        id: row.id,
        campaignId: row.campaign_id,
        submittedAt: new Date(Number(row.submitted_at)).toISOString(),
        attendanceStatus: row.attendance_status,
        answers: JSON.parse(row.answers),
      },
    }));
    await importRecords(store, systemClock, [items]);
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
}
