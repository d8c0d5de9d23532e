import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { insertAccount } from '../src/accounts/accounts.repository.ts';
import { systemClock } from '../src/clock.ts';
import type { Store } from '../src/db/connect.ts';
import type { NewRespondentRow } from '../src/db/schema.ts';
import { upsertRespondents } from '../src/import/import.repository.ts';
import { importDocument } from '../src/import/import.service.ts';
import { issueKey } from '../src/keys/keys.service.ts';

/** Bump when the generated data changes, so cached seeds are rebuilt. */
const SEED_VERSION = 1;

export const CAMPAIGNS = 100;
export const TOTAL_RESPONDENTS = 1_000_000;
export const BIG_CAMPAIGN_ROWS = 500_000;
export const BIG_CAMPAIGN = 'bench-000';
/** Respondents submit from here on, one every 6 seconds per campaign on average. */
export const FIRST_SUBMISSION_MS = Date.UTC(2026, 0, 1);
const SPACING_MS = 6_000;

export const FIELDS = [
  { key: 'name', type: 'TEXT' },
  { key: 'email', type: 'EMAIL' },
  { key: 'phone', type: 'PHONE' },
  { key: 'guests', type: 'NUMBER' },
  { key: 'meal', type: 'RADIO' },
  { key: 'shirt', type: 'SELECT' },
  { key: 'diet', type: 'CHECKBOX' },
  { key: 'sessions', type: 'CHECKBOX' },
  { key: 'city', type: 'TEXT' },
  { key: 'note', type: 'TEXTAREA' },
] as const;

/** The benchmark key's allow-list: six fields, two single-choice, one multi-select. */
export const ALLOW_LIST = ['name', 'email', 'guests', 'meal', 'shirt', 'diet'];

const FIRST_NAMES = [
  'Ayu',
  'Budi',
  'Citra',
  'Dewi',
  'Eko',
  'Fajar',
  'Gita',
  'Hadi',
  'Indah',
  'Joko',
];
const LAST_NAMES = ['Santoso', 'Wijaya', 'Pratama', 'Lestari', 'Nugroho', 'Putri', 'Saputra'];
const CITIES = ['Jakarta', 'Bandung', 'Surabaya', 'Yogyakarta', 'Medan', 'Makassar', 'Denpasar'];
const MEALS = ['Nasi goreng', 'Sate ayam', 'Gado-gado', 'Vegetarian'];
const SHIRTS = ['S', 'M', 'L', 'XL', 'XXL'];
const DIETS = ['Halal', 'Tanpa kacang', 'Tanpa gluten', 'Vegan'];
const SESSIONS = ['Pembukaan', 'Diskusi panel', 'Lokakarya', 'Makan malam'];
export const STATUSES = ['YES', 'YES', 'YES', 'NO', 'MAYBE'] as const;

export interface SeedManifest {
  version: number;
  key: string;
}

function campaignId(index: number): string {
  return `bench-${String(index).padStart(3, '0')}`;
}

/** How many respondents each campaign gets: one of 500,000, the rest spread over the others. */
function rowsOf(index: number): number {
  if (index === 0) return BIG_CAMPAIGN_ROWS;
  const others = CAMPAIGNS - 1;
  const rest = TOTAL_RESPONDENTS - BIG_CAMPAIGN_ROWS;
  return Math.floor(rest / others) + (index <= rest % others ? 1 : 0);
}

/** A deterministic pseudo-random sequence, so both engines get the same rows. */
export function generator(seed: number) {
  let state = seed >>> 0;
  return (n: number) => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return state % n;
  };
}

export function pick<T>(random: (n: number) => number, from: readonly T[]): T {
  return from[random(from.length)] as T;
}

function someOf(random: (n: number) => number, from: readonly string[]): string[] {
  return from.filter(() => random(3) === 0);
}

export function answersFor(random: (n: number) => number, n: number): Record<string, unknown> {
  const first = pick(random, FIRST_NAMES);
  const last = pick(random, LAST_NAMES);
  const answers: Record<string, unknown> = {
    name: `${first} ${last}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}${n}@contoh.id`,
    phone: `+62 8${String(100_000_000 + random(899_999_999))}`,
    guests: String(random(4)),
    meal: pick(random, MEALS),
    shirt: pick(random, SHIRTS),
    city: pick(random, CITIES),
  };
  const diet = someOf(random, DIETS);
  if (diet.length > 0) answers.diet = diet;
  const sessions = someOf(random, SESSIONS);
  if (sessions.length > 0) answers.sessions = sessions;
  if (random(4) === 0) answers.note = 'Mohon kursi dekat pintu keluar, terima kasih banyak.';
  return answers;
}

const BATCH = 20_000;

async function seedRespondents(store: Store, index: number): Promise<void> {
  const random = generator(index + 1);
  const id = campaignId(index);
  const total = rowsOf(index);
  let submittedAt = FIRST_SUBMISSION_MS;
  for (let start = 0; start < total; start += BATCH) {
    const rows: NewRespondentRow[] = [];
    for (let n = start; n < Math.min(total, start + BATCH); n++) {
      submittedAt += 1 + random(2 * SPACING_MS);
      rows.push({
        id: `${id}-${String(n).padStart(7, '0')}`,
        campaign_id: id,
        submitted_at: submittedAt,
        attendance_status: pick(random, STATUSES),
        answers: JSON.stringify(answersFor(random, n)),
      });
    }
    await store.db.transaction().execute((trx) => upsertRespondents(trx, rows));
  }
}

/**
 * Fills an empty, migrated store with the benchmark data set and issues the benchmark key; or, when
 * `manifestPath` records a seed of this version, reuses it.
 */
export async function seedOnce(
  store: Store,
  manifestPath: string,
  progress: (line: string) => void,
): Promise<SeedManifest> {
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as SeedManifest;
    if (manifest.version === SEED_VERSION) return manifest;
    throw new Error(`${manifestPath} is from another seed version; delete bench/.data and rerun`);
  }
  const campaigns = Array.from({ length: CAMPAIGNS }, (_, index) => ({
    id: campaignId(index),
    slug: campaignId(index),
    title: `Acara ${index}`,
    eventDate: '2026-12-01T10:00:00Z',
    location: pick(generator(index), CITIES),
    fields: FIELDS.map((field) => ({ ...field, label: field.key })),
  }));
  await importDocument(store, systemClock, { campaigns, respondents: [] });
  const started = Date.now();
  for (let index = 0; index < CAMPAIGNS; index++) {
    await seedRespondents(store, index);
    if (index % 10 === 0 || index === CAMPAIGNS - 1) {
      progress(
        `  ${store.engine}: campaign ${index + 1}/${CAMPAIGNS} (${Math.round((Date.now() - started) / 1000)} s)`,
      );
    }
  }
  const email = 'bench@hadir.test';
  await insertAccount(store.db, {
    id: randomUUID(),
    email,
    password_hash: null,
    must_change_password: 0,
    deactivated_at: null,
    created_at: systemClock.now(),
  });
  const issued = await issueKey(store, systemClock, {
    accountEmail: email,
    name: 'benchmark',
    scopes: campaigns.map((campaign) => ({ campaignId: campaign.id, fields: ALLOW_LIST })),
    expiresAt: Date.UTC(2100, 0, 1),
  });
  const manifest: SeedManifest = { version: SEED_VERSION, key: issued.key };
  writeFileSync(manifestPath, JSON.stringify(manifest), { mode: 0o600 });
  return manifest;
}
