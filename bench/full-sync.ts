import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror, runSync } from '../packages/sync/src/index.ts';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { systemClock } from '../src/clock.ts';
import { openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importRecords } from '../src/import/import.service.ts';
import type { ImportItem } from '../src/import/import-sources.ts';
import { issueKey } from '../src/keys/keys.service.ts';
import { LIMIT } from './cases.ts';
import { startHadir } from './processes.ts';
import { ALLOW_LIST, answersFor, FIELDS, FIRST_SUBMISSION_MS, generator } from './seed.ts';

/** The campaign a partner mirrors from scratch. */
export const FULL_SYNC_ROWS = 100_000;
const CAMPAIGN = 'full-sync';
const BATCH = 5_000;

export interface FullSyncRow {
  rows: number;
  ratePerMinute: number;
  /** Every request the sync made: its pages, and the list, summary, fields and removals reads. */
  requests: number;
  /** The least time the rate limit allows for those requests: requests / rate. */
  boundSeconds: number;
  seconds: number;
  /** seconds / boundSeconds: at most 1.05 is the goal. */
  ratio: number;
  rateLimitWaits: number;
}

/** A SQLite store holding one campaign of FULL_SYNC_ROWS respondents (made once, kept). */
async function prepareStore(folder: string): Promise<{ url: string; key: string }> {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const url = `sqlite:${join(folder, 'full-sync.sqlite')}`;
  const fresh = !existsSync(join(folder, 'full-sync.sqlite'));
  const store = openStore(url);
  try {
    await migrateToLatest(store);
    if (fresh) {
      const random = generator(7);
      const campaign: ImportItem = {
        kind: 'campaign',
        place: 'campaign',
        record: {
          id: CAMPAIGN,
          slug: CAMPAIGN,
          title: 'Full sync',
          eventDate: null,
          location: null,
          fields: FIELDS.map((field) => ({ ...field, label: field.key })),
        },
      };
      async function* items(): AsyncGenerator<ImportItem[]> {
        yield [campaign];
        for (let start = 0; start < FULL_SYNC_ROWS; start += BATCH) {
          yield Array.from({ length: BATCH }, (_, offset) => {
            const n = start + offset;
            return {
              kind: 'respondent' as const,
              place: `row ${n}`,
              record: {
                id: `fs-${String(n).padStart(6, '0')}`,
                campaignId: CAMPAIGN,
                submittedAt: new Date(FIRST_SUBMISSION_MS + n * 1000).toISOString(),
                attendanceStatus: 'YES',
                answers: answersFor(random, n),
              },
            };
          });
        }
      }
      await importRecords(store, systemClock, items());
    }
    // A key of its own each run: its budget starts full.
    const email = `full-sync-${Date.now()}@bench.test`;
    await createAccount(store, systemClock, { email, mustChangePassword: false });
    const key = await issueKey(store, systemClock, {
      accountEmail: email,
      scopes: [{ campaignId: CAMPAIGN, fields: ALLOW_LIST }],
    });
    return { url, key: key.key };
  } finally {
    await store.close();
  }
}

/**
 * A partner's first hadir-sync of a FULL_SYNC_ROWS campaign against a server whose rate limit is
 * `ratePerMinute`, timed against the least time that limit allows for the requests it made.
 */
export async function measureFullSync(options: {
  dataFolder: string;
  ratePerMinute: number;
  log: (line: string) => void;
}): Promise<FullSyncRow> {
  const { url, key } = await prepareStore(join(options.dataFolder, 'full-sync'));
  const server = await startHadir({
    DATABASE_URL: url,
    RATE_LIMIT_PER_MINUTE: String(options.ratePerMinute),
  });
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-full-sync-'));
  try {
    let requests = 0;
    let waits = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, {
        ...init,
        headers: { ...init?.headers, 'x-forwarded-proto': 'https' },
      });
    };
    const mirror = await Mirror.open(`sqlite:${join(folder, 'mirror.sqlite')}`);
    const started = performance.now();
    const [result] = await runSync(
      {
        baseUrl: server.url,
        apiKey: key,
        campaigns: [CAMPAIGN],
        full: false,
        limit: LIMIT,
      },
      { mirror, client: { fetch: counting, onRateLimit: () => (waits += 1) } },
    );
    const seconds = (performance.now() - started) / 1000;
    await mirror.close();
    // A 429 answered and retried is a request too, but not one the bound counts.
    const needed = requests - waits;
    const boundSeconds = (needed / options.ratePerMinute) * 60;
    options.log(
      `  ${result?.rows ?? 0} rows in ${needed} requests at ${options.ratePerMinute}/min: ${seconds.toFixed(1)} s against a bound of ${boundSeconds.toFixed(1)} s (${waits} waits)`,
    );
    return {
      rows: result?.rows ?? 0,
      ratePerMinute: options.ratePerMinute,
      requests: needed,
      boundSeconds,
      seconds,
      ratio: seconds / boundSeconds,
      rateLimitWaits: waits,
    };
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
