import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { systemClock } from '../src/clock.ts';
import { openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importDocument } from '../src/import/import.service.ts';
import { issueKey } from '../src/keys/keys.service.ts';
import type { PortalDeps } from '../src/portal/portal-context.ts';
import { createSessions } from '../src/portal/sessions.ts';
import { HOUR_MS } from '../src/time-units.ts';
import { sampleRss, startHadir } from './processes.ts';

export const SMALL = { id: 'tamu-10k', rows: 10_000 };
const LARGE = { id: 'tamu-100k', rows: 100_000 };
const SMALL_RUNS = 20;

export interface DownloadsRow {
  /** 10,000 respondents as Excel, time to the last byte over SMALL_RUNS downloads. */
  excel10k: { p50Ms: number; p95Ms: number; bytes: number; runs: number };
  /** 100,000 respondents streamed, each format once, with the server's peak resident memory. */
  large: Array<{
    format: 'xlsx' | 'csv';
    seconds: number;
    bytes: number;
    idleRssBytes: number;
    peakRssBytes: number;
  }>;
  /**
   * The data API's page 1 of the small campaign, one request at a time, alone and while one
   * holder keeps HOLDER_DOWNLOADS asks for 100,000-row Excel files going (the written ones and
   * the refused ones counted).
   */
  underDownloads: UnderDownloads;
  /** The same with the files written on the serving thread (SPEEDUPS_OFF=file-thread). */
  underDownloadsServingThread: UnderDownloads;
  /** The same with a holder who asks again FLOOD_AGAIN_MS after each refusal. */
  underDownloadsFlood: UnderDownloads;
}

interface UnderDownloads {
  aloneP50Ms: number;
  duringP50Ms: number;
  downloadsAsked: number;
  downloadsWritten: number;
  downloadsRefused: number;
}

/** Excel files one holder asks for at once in the under-downloads case. */
const HOLDER_DOWNLOADS = 20;
/** How soon a flooding holder asks again after a refusal, whatever its Retry-After says. */
const FLOOD_AGAIN_MS = 100;
/** How long the data API is run before it is timed. */
const WARM_UP_MS = 3_000;
/** How long the data API is timed, alone and then during the downloads. */
const TIMED_MS = 8_000;

export const FIELDS = [
  { key: 'nama', type: 'TEXT', label: 'Nama lengkap' },
  { key: 'telepon', type: 'PHONE', label: 'Nomor telepon' },
  { key: 'sesi', type: 'RADIO', label: 'Sesi' },
  { key: 'menu', type: 'SELECT', label: 'Pilihan menu' },
  { key: 'alergi', type: 'CHECKBOX', label: 'Alergi' },
  { key: 'ucapan', type: 'TEXTAREA', label: 'Ucapan' },
];

/** A campaign of `rows` respondents with FIELDS answered, as an import document. */
export function campaign(id: string, rows: number) {
  const start = Date.parse('2026-09-01T00:00:00Z');
  return {
    campaigns: [
      { id, slug: id, title: `Tamu ${rows}`, eventDate: null, location: null, fields: FIELDS },
    ],
    respondents: Array.from({ length: rows }, (_, n) => ({
      id: `${id}-${String(n).padStart(6, '0')}`,
      campaignId: id,
      submittedAt: new Date(start + n * 1000).toISOString(),
      attendanceStatus: n % 5 === 0 ? 'NO' : 'YES',
      answers: {
        nama: `Tamu Nomor ${n} Wijayakusuma`,
        telepon: `+62812${String(n).padStart(7, '0')}`,
        sesi: n % 2 ? 'Akad' : 'Resepsi',
        menu: ['Nasi Liwet', 'Sate Ayam', 'Vegetarian'][n % 3],
        alergi: n % 7 ? [] : ['Kacang', 'Seafood'],
        ucapan: 'Selamat menempuh hidup baru, semoga sakinah mawaddah warahmah.',
      },
    })),
  };
}

/** Downloads one file to its last byte, as a browser does; its time and size. */
async function fetchFile(url: string, cookie: string) {
  const started = performance.now();
  const response = await fetch(url, {
    headers: { cookie, 'x-forwarded-proto': 'https', 'accept-language': 'en' },
  });
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
  }
  return { ms: performance.now() - started, bytes };
}

/**
 * The guest-list downloads of the portal, from a server as run in production: a campaign of
 * 10,000 respondents as Excel, SMALL_RUNS times in a row (p95 of the time to the last byte), and
 * one of 100,000 as Excel and as CSV, with the server's peak resident memory while it streams.
 */
export async function measureDownloads(log: (line: string) => void): Promise<DownloadsRow> {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-downloads-'));
  const database = join(folder, 'downloads.sqlite');
  const store = openStore(`sqlite:${database}`);
  let keyId: string;
  let apiKey: string;
  let token: string;
  try {
    await migrateToLatest(store);
    for (const { id, rows } of [SMALL, LARGE]) {
      await importDocument(store, systemClock, campaign(id, rows));
    }
    const account = await createAccount(store, systemClock, {
      email: 'wo@hadir.test',
      password: 'kopi-tubruk-pagi-hari',
      mustChangePassword: false,
    });
    const scopes = [SMALL, LARGE].map(({ id }) => ({
      campaignId: id,
      fields: FIELDS.map((field) => field.key),
    }));
    ({ id: keyId, key: apiKey } = await issueKey(store, systemClock, {
      accountEmail: 'wo@hadir.test',
      scopes,
    }));
    // A session as a sign-in leaves it (the bench has no mailbox for the code).
    const sessions = createSessions({
      store,
      clock: systemClock,
      settings: { sessionAbsoluteMs: HOUR_MS },
    } as unknown as PortalDeps);
    ({ token } = await sessions.issue(account.id));
  } finally {
    await store.close();
  }
  const cookie = `__Host-hadir_session=${token}`;
  const server = await startHadir({ DATABASE_URL: `sqlite:${database}` });
  try {
    const url = (id: string, format: string) =>
      `${server.url}/developer/portal/keys/${keyId}/campaigns/${id}/guest-list.${format}`;
    for (let warm = 0; warm < 2; warm += 1) await fetchFile(url(SMALL.id, 'xlsx'), cookie);
    const times: number[] = [];
    let bytes = 0;
    for (let run = 0; run < SMALL_RUNS; run += 1) {
      const file = await fetchFile(url(SMALL.id, 'xlsx'), cookie);
      times.push(file.ms);
      bytes = file.bytes;
    }
    times.sort((a, b) => a - b);
    const excel10k = {
      p50Ms: Math.round(times[Math.floor(SMALL_RUNS * 0.5)] as number),
      p95Ms: Math.round(times[Math.ceil(SMALL_RUNS * 0.95) - 1] as number),
      bytes,
      runs: SMALL_RUNS,
    };
    log(`  10,000 respondents as Excel: p50 ${excel10k.p50Ms} ms, p95 ${excel10k.p95Ms} ms`);
    const large: DownloadsRow['large'] = [];
    for (const format of ['xlsx', 'csv'] as const) {
      // Each on a server of its own, as started: its memory is the download's, not the runs'.
      const fresh = await startHadir({ DATABASE_URL: `sqlite:${database}` });
      try {
        const idleRssBytes = sampleRss(fresh.pid)();
        const peak = sampleRss(fresh.pid);
        const file = await fetchFile(
          `${fresh.url}/developer/portal/keys/${keyId}/campaigns/${LARGE.id}/guest-list.${format}`,
          cookie,
        );
        const peakRssBytes = peak();
        large.push({
          format,
          seconds: file.ms / 1000,
          bytes: file.bytes,
          idleRssBytes,
          peakRssBytes,
        });
        log(
          `  100,000 respondents as ${format}: ${(file.ms / 1000).toFixed(1)} s, ${(file.bytes / 1e6).toFixed(1)} MB, server RSS ${Math.round(idleRssBytes / 2 ** 20)} MiB idle, ${Math.round(peakRssBytes / 2 ** 20)} MiB at peak`,
        );
      } finally {
        await fresh.stop();
      }
    }
    const under = (env: Record<string, string>, againMs: number | undefined, how: string) =>
      timeUnderDownloads(database, apiKey, url(LARGE.id, 'xlsx'), cookie, env, againMs).then(
        (row) => {
          log(
            `  data API page 1, one at a time: p50 ${row.aloneP50Ms} ms alone, ${row.duringP50Ms} ms while one holder kept ${HOLDER_DOWNLOADS} asks for large Excel files going, ${how} (${row.downloadsWritten} written, ${row.downloadsRefused} refused)`,
          );
          return row;
        },
      );
    const underDownloads = await under({}, undefined, 'files on a thread of their own');
    const underDownloadsServingThread = await under(
      { SPEEDUPS_OFF: 'file-thread' },
      undefined,
      'files on the serving thread',
    );
    const underDownloadsFlood = await under(
      {},
      FLOOD_AGAIN_MS,
      `asking again ${FLOOD_AGAIN_MS} ms after each refusal`,
    );
    return { excel10k, large, underDownloads, underDownloadsServingThread, underDownloadsFlood };
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** p50 of the data API's latency, one request after another, for `ms`. */
export async function timedPageOne(base: string, apiKey: string, ms = TIMED_MS): Promise<number> {
  const times: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    const answer = await fetch(`${base}/developer/v1/campaigns/${SMALL.id}/respondents?limit=50`, {
      headers: { authorization: `Bearer ${apiKey}`, 'x-forwarded-proto': 'https' },
    });
    await answer.arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round((times[Math.floor(times.length / 2)] as number) * 100) / 100;
}

/** The data API alone, then while one holder asks for HOLDER_DOWNLOADS large files at once. */
async function timeUnderDownloads(
  database: string,
  apiKey: string,
  fileUrl: string,
  cookie: string,
  env: Record<string, string>,
  againMs: number | undefined,
): Promise<UnderDownloads> {
  const server = await startHadir({ DATABASE_URL: `sqlite:${database}`, ...env });
  try {
    const file = fileUrl.replace(/^http:\/\/[^/]+/, server.url);
    // A freshly started server is timed once it has run the path a while.
    await timedPageOne(server.url, apiKey, WARM_UP_MS);
    const aloneP50Ms = await timedPageOne(server.url, apiKey);
    let written = 0;
    let refused = 0;
    let timing = true;
    // The holder keeps HOLDER_DOWNLOADS asks going for the whole window: a refused one asks
    // again when its Retry-After says (or after againMs), a written one once its file is read.
    const asking = Array.from({ length: HOLDER_DOWNLOADS }, async () => {
      while (timing) {
        const answer = await fetch(file, {
          headers: { cookie, 'x-forwarded-proto': 'https', 'accept-language': 'en' },
        });
        await answer.arrayBuffer();
        if (answer.status === 200) written += 1;
        else {
          refused += 1;
          const wait = againMs ?? Number(answer.headers.get('retry-after') ?? 1) * 1000;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    });
    const duringP50Ms = await timedPageOne(server.url, apiKey);
    timing = false;
    await Promise.all(asking);
    return {
      aloneP50Ms,
      duringP50Ms,
      downloadsAsked: HOLDER_DOWNLOADS,
      downloadsWritten: written,
      downloadsRefused: refused,
    };
  } finally {
    await server.stop();
  }
}
