// What the operator CLI's tests import and count: a small wedding document, written to a file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

export const DOCUMENT = {
  campaigns: [
    {
      id: 'kawinan',
      slug: 'kawinan',
      title: 'Kawinan',
      eventDate: '2026-12-12T10:00:00+07:00',
      location: 'Bogor',
      fields: [
        { key: 'menu', label: 'Menu', type: 'RADIO' },
        { key: 'nama', label: 'Nama', type: 'TEXT' },
      ],
    },
  ],
  respondents: [
    {
      id: 'k1',
      campaignId: 'kawinan',
      submittedAt: '2026-11-01T00:00:00Z',
      attendanceStatus: 'YES',
      answers: { menu: 'Sate', nama: 'Ani' },
      token: 't',
    },
    {
      id: 'k2',
      campaignId: 'kawinan',
      submittedAt: '2026-11-02T00:00:00Z',
      attendanceStatus: 'NO',
      answers: { menu: 'Soto' },
    },
  ],
};

export function writeJson(value: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'hadir-cli-')), 'import.json');
  writeFileSync(path, JSON.stringify(value));
  return path;
}

export async function countRows(databaseUrl: string) {
  const store = openStore(databaseUrl);
  try {
    await migrateToLatest(store);
    const campaigns = await store.db
      .selectFrom('campaigns')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const respondents = await store.db
      .selectFrom('respondents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return { campaigns: Number(campaigns.n), respondents: Number(respondents.n) };
  } finally {
    await store.close();
  }
}

// Each test starts the CLI as processes (an import, a server): slow by nature, so given room.
