import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.ts';
import { DEFAULT_DATABASE_URL } from '../../../src/config.ts';
import { openStore } from '../../../src/db/connect.ts';
import { migrateToLatest, migrateUpTo } from '../../../src/db/migrate.ts';
import { loadServerSecrets } from '../../../src/secrets.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { createEmptyPostgresUrl, createTestDatabaseUrl, ENGINES } from '../../helpers/stores.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every byte SQLite keeps for a database: the file and its journal files. */
function sqliteBytes(path: string): string {
  return ['', '-wal', '-shm']
    .map((suffix) => `${path}${suffix}`)
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString('latin1'))
    .join('');
}

const NEVER_SERVED = {
  ipAddress: '203.0.113.254',
  token: 'tok-4f1c9e2b7d',
  guestToken: 'guest-8a3e6b0c5f',
};

describe('files of the SQLite store and of development secrets', () => {
  it('creates the default data folder 0700 and the database and its journal files 0600', async () => {
    const cwd = process.cwd();
    process.chdir(mkdtempSync(join(tmpdir(), 'hadir-modes-')));
    try {
      const store = openStore(DEFAULT_DATABASE_URL);
      await migrateToLatest(store);
      expect(modeOf('data')).toBe(0o700);
      for (const suffix of ['', '-wal', '-shm']) {
        expect(modeOf(`data/hadir.sqlite${suffix}`)).toBe(0o600);
      }
      await store.close();
    } finally {
      process.chdir(cwd);
    }
  });

  it('deletes securely on the connection that made the database, migrations and all', async () => {
    const url = await createTestDatabaseUrl('sqlite');
    const store = openStore(url);
    try {
      await migrateToLatest(store);
      const setting = await sql<{ secure_delete: number }>`PRAGMA secure_delete`.execute(store.db);
      expect(setting.rows).toEqual([{ secure_delete: 1 }]);
    } finally {
      await store.close();
    }
  });

  it('tightens a looser existing database and folder, and says so', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'hadir-modes-')), 'data');
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    const path = join(folder, 'hadir.sqlite');
    const first = openStore(`sqlite:${path}`);
    await migrateToLatest(first);
    await first.close();
    chmodSync(path, 0o644);
    chmodSync(folder, 0o755);

    const warnings: string[] = [];
    const store = openStore(`sqlite:${path}`, { onWarning: (message) => warnings.push(message) });
    await store.close();
    expect(modeOf(folder)).toBe(0o700);
    expect(modeOf(path)).toBe(0o600);
    expect(warnings).toEqual([
      `${folder} was 0755; it holds private data, so it is now 0700`,
      `${path} was 0644; it holds private data, so it is now 0600`,
    ]);
  });

  it('tightens a development secrets file others could read, and says so', () => {
    const folder = mkdtempSync(join(tmpdir(), 'hadir-secrets-'));
    const file = join(folder, 'secrets.json');
    writeFileSync(
      file,
      JSON.stringify({ codeHmacKey: 'a'.repeat(64), keySealKey: 'b'.repeat(64) }),
      { mode: 0o644 },
    );
    chmodSync(file, 0o644);
    const warnings: string[] = [];
    const secrets = loadServerSecrets({}, false, file, (message) => warnings.push(message));
    expect(secrets.codeHmacKey.toString('hex')).toBe('a'.repeat(64));
    expect(modeOf(file)).toBe(0o600);
    expect(warnings).toContain(`${file} was 0644; it holds private data, so it is now 0600`);
  });
});

describe('values the service never serves', () => {
  it('are not in the database file at all after an import', async () => {
    const url = await createTestDatabaseUrl('sqlite');
    const store = openStore(url);
    await migrateToLatest(store);
    const counts = await seedCampaign(store, systemClock, {
      id: 'c',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: [
        {
          id: 'r1',
          submittedAt: '2026-11-01T00:00:00Z',
          answers: { menu: 'Sate', ipAddress: NEVER_SERVED.ipAddress },
          ...NEVER_SERVED,
        },
      ],
    });
    expect(counts.dropped).toEqual({ ipAddress: 2, token: 1, guestToken: 1 });
    await store.close();
    const bytes = sqliteBytes(url.slice('sqlite:'.length));
    expect(bytes).toContain('Sate');
    for (const value of Object.values(NEVER_SERVED)) expect(bytes).not.toContain(value);
  });

  describe.each(ENGINES)(
    'kept by a database made before they were dropped (0005) on %s',
    (engine) => {
      it('are erased by the upgrade, and every other answer is kept', async () => {
        const url =
          engine === 'sqlite'
            ? await createTestDatabaseUrl('sqlite')
            : await createEmptyPostgresUrl();
        const store = openStore(url);
        try {
          await migrateUpTo(store, '0004-lockout-by-proof');
          await sql`INSERT INTO campaigns (id, slug, title, updated_at) VALUES ('c', 'c', 'C', 0)`.execute(
            store.db,
          );
          await sql`INSERT INTO campaign_fields (campaign_id, key, label, type, position)
          VALUES ('c', 'menu', 'Menu', 'RADIO', 0)`.execute(store.db);
          await sql`INSERT INTO respondents
          (id, campaign_id, submitted_at, attendance_status, answers, ip_address, token, guest_token)
          VALUES ('r1', 'c', 1, 'YES', ${JSON.stringify({ menu: 'Sate', token: NEVER_SERVED.token })},
            ${NEVER_SERVED.ipAddress}, ${NEVER_SERVED.token}, ${NEVER_SERVED.guestToken})`.execute(
            store.db,
          );
          await migrateToLatest(store);
          const rows = await sql<Record<string, unknown>>`SELECT * FROM respondents`.execute(
            store.db,
          );
          expect(rows.rows).toHaveLength(1);
          const row = rows.rows[0] as Record<string, unknown>;
          expect(Object.keys(row)).not.toContain('ip_address');
          expect(JSON.parse(String(row.answers))).toEqual({ menu: 'Sate' });
          for (const value of Object.values(NEVER_SERVED)) {
            expect(JSON.stringify(rows.rows)).not.toContain(value);
          }
          const counts = await sql<{ count: number }>`SELECT count FROM answer_counts`.execute(
            store.db,
          );
          expect(counts.rows.map((count) => Number(count.count))).toEqual([1]);
        } finally {
          await store.close();
        }
        if (engine === 'sqlite') {
          const bytes = sqliteBytes(url.slice('sqlite:'.length));
          for (const value of Object.values(NEVER_SERVED)) expect(bytes).not.toContain(value);
        }
      });
    },
  );
});
