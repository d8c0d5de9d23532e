import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { importDocument } from '../../../src/import/import.service.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { createTestDatabaseUrl, openTestStore } from '../../helpers/stores.ts';

describe('PostgreSQL statistics', () => {
  it('never sample an answer into pg_statistic, where it would outlive its row', async () => {
    const url = await createTestDatabaseUrl('postgres');
    const store = await openTestStore(url);
    const clock = new ManualClock('2026-10-02T00:00:00Z');
    // Short answers: their sample fits in pg_statistic's own pages, uncompressed.
    const names = ['StatNamaSari', 'StatNamaBudi', 'StatNamaDewi'];
    let statistics: string;
    try {
      await importDocument(store, clock, {
        campaigns: [
          {
            id: 'c',
            slug: 'c',
            title: 'c',
            fields: [
              { key: 'nama', label: 'Nama', type: 'TEXT' },
              // A single-choice answer typed by one person is that person's data too.
              { key: 'pilihan', label: 'Pilihan', type: 'RADIO' },
            ],
          },
        ],
        respondents: names.map((nama, index) => ({
          id: `r${index}`,
          campaignId: 'c',
          submittedAt: '2026-10-01T00:00:00Z',
          attendanceStatus: 'YES',
          answers: { nama, pilihan: `Pilihan${nama}` },
        })),
      });
      await sql`ANALYZE answer_counts`.execute(store.db);
      await sql`CHECKPOINT`.execute(store.db);
      const file = await sql<{ path: string; dir: string }>`SELECT
        pg_relation_filepath('pg_statistic') AS path,
        current_setting('data_directory') AS dir`.execute(store.db);
      const { path, dir } = file.rows[0] as { path: string; dir: string };
      statistics = readFileSync(join(dir, path)).toString('latin1');
    } finally {
      await store.close();
    }
    const values = names.flatMap((nama) => [nama, `Pilihan${nama}`]);
    expect(values.filter((value) => statistics.includes(value))).toEqual([]);
  });
});
