import { execFile } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { runHadir } from '../helpers/cli.ts';
import { backupFolder as folder, importDocument, succeed } from '../helpers/cli-backups.ts';
import { findPostgresBin } from '../helpers/postgres-cluster.ts';
import { createEmptyPostgresUrl, createTestDatabaseUrl } from '../helpers/stores.ts';

// Each test spawns the CLI a dozen times or more: given room for a machine twice as slow.
describe('hadir backup on PostgreSQL', { timeout: 120_000 }, () => {
  let databaseUrl: string;
  let work: string;
  const pgBin = findPostgresBin();

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('postgres');
    work = folder();
    writeFileSync(join(work, 'rows.json'), importDocument('pg', 500));
    await succeed(['import', join(work, 'rows.json')], databaseUrl);
  });

  it('dumps with pg_dump in custom format, and pg_restore brings back every row', async () => {
    const backup = join(work, 'hadir.dump');
    const output = await succeed(['backup', '--to', backup], databaseUrl, { PG_BIN: pgBin });
    expect(output).toContain('pg_dump custom format');
    expect(statSync(backup).mode & 0o777).toBe(0o600);

    // docs/operating/backups.md's restore: into a new, empty database.
    const target = await createTestDatabaseUrl('postgres');
    const admin = new pg.Client({ connectionString: target });
    await admin.connect();
    try {
      await admin.query('DROP SCHEMA public CASCADE');
      await admin.query('CREATE SCHEMA public');
    } finally {
      await admin.end();
    }
    await new Promise<void>((resolve, reject) =>
      execFile(
        join(pgBin, 'pg_restore'),
        ['--no-owner', `--dbname=${target}`, backup],
        (error, _stdout, stderr) => (error ? reject(new Error(stderr)) : resolve()),
      ),
    );
    const count = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT (SELECT count(*) FROM respondents) AS respondents, (SELECT count(*) FROM campaigns) AS campaigns',
        );
        return rows[0];
      } finally {
        await client.end();
      }
    };
    expect(await count(target)).toEqual(await count(databaseUrl));
    expect((await count(target)).respondents).toBe('500');
  });

  it('says plainly when pg_dump is not installed', async () => {
    const result = await runHadir(['backup', '--to', join(work, 'none.dump')], {
      databaseUrl,
      env: { PG_BIN: folder() },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('pg_dump is not installed');
    expect(existsSync(join(work, 'none.dump'))).toBe(false);
  });

  it('restores into a new database, and removes again what was removed after the backup', async () => {
    const backup = join(work, 'before-erasure.dump');
    await succeed(['backup', '--to', backup], databaseUrl, { PG_BIN: pgBin });
    // pg-0 is in campaign satu; campaign tiga goes whole.
    await succeed(['respondents', 'erase', '--campaign', 'satu', '--id', 'pg-0'], databaseUrl);
    await succeed(['campaigns', 'delete', 'tiga'], databaseUrl);

    const into = await createEmptyPostgresUrl();
    const restored = JSON.parse(
      await succeed(['restore', '--from', backup, '--into', into, '--json'], databaseUrl, {
        PG_BIN: pgBin,
      }),
    );
    expect(restored).toMatchObject({
      engine: 'postgres',
      campaigns: 2,
      erasedAgain: 1,
      campaignsDeletedAgain: 1,
      currentDatabaseFound: true,
      // Their bytes leave the new database's free space before anything serves it.
      compaction: { skipped: [], scrub: 'gone' },
    });
    const found = await succeed(['respondents', 'find', '--value', 'Soto', '--json'], into);
    const rows = (JSON.parse(found) as { respondents: Array<{ id: string; campaignId: string }> })
      .respondents;
    expect(rows.map((row) => row.id)).not.toContain('pg-0');
    expect(rows.some((row) => row.campaignId === 'tiga')).toBe(false);
    expect(rows.map((row) => row.id)).toContain('pg-6');
    // The feed tells partners' mirrors, as for any erasure.
    const client = new pg.Client({ connectionString: into });
    await client.connect();
    try {
      const { rows: tombstone } = await client.query(
        "SELECT campaign_id FROM removals WHERE respondent_id = 'pg-0'",
      );
      expect(tombstone).toEqual([{ campaign_id: 'satu' }]);
    } finally {
      await client.end();
    }
  });

  it('refuses to restore over the database in use or into one that holds tables', async () => {
    const backup = join(work, 'for-refusals.dump');
    await succeed(['backup', '--to', backup], databaseUrl, { PG_BIN: pgBin });
    const over = await runHadir(['restore', '--from', backup, '--into', databaseUrl], {
      databaseUrl,
      env: { PG_BIN: pgBin },
    });
    expect(over.status).toBe(1);
    expect(over.stderr).toContain('--into names the database DATABASE_URL names');
    const full = await runHadir(
      ['restore', '--from', backup, '--into', await createTestDatabaseUrl('postgres')],
      { databaseUrl, env: { PG_BIN: pgBin } },
    );
    expect(full.status).toBe(1);
    expect(full.stderr).toContain('already holds tables');
    // The database in use is gone: the archive is restored all the same, and it says so.
    const gone = databaseUrl.replace(/\/[^/]*$/, '/hadir_gone');
    const into = await createEmptyPostgresUrl();
    const lost = await runHadir(['restore', '--from', backup, '--into', into], {
      databaseUrl: gone,
      env: { PG_BIN: pgBin },
    });
    expect(lost.stderr).toBe('');
    expect(lost.stdout).toContain('does not exist, so nothing removed after the backup');
    const without = await runHadir(['restore', '--from', backup], { databaseUrl });
    expect(without.status).toBe(1);
    expect(without.stderr).toContain('--into is required');
  });
});
