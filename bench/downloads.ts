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

const SMALL = { id: 'tamu-10k', rows: 10_000 };
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
}

const FIELDS = [
  { key: 'nama', type: 'TEXT', label: 'Nama lengkap' },
  { key: 'telepon', type: 'PHONE', label: 'Nomor telepon' },
  { key: 'sesi', type: 'RADIO', label: 'Sesi' },
  { key: 'menu', type: 'SELECT', label: 'Pilihan menu' },
  { key: 'alergi', type: 'CHECKBOX', label: 'Alergi' },
  { key: 'ucapan', type: 'TEXTAREA', label: 'Ucapan' },
];

function campaign(id: string, rows: number) {
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
    ({ id: keyId } = await issueKey(store, systemClock, { accountEmail: 'wo@hadir.test', scopes }));
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
    return { excel10k, large };
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
