import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exitOf, HADIR_BIN, runHadir, startHadir, TEST_SECRET_ENV } from '../helpers/cli.ts';
import {
  CAMPAIGNS,
  backupFolder as folder,
  importDocument,
  succeed,
} from '../helpers/cli-backups.ts';
import { spawnOwned } from '../helpers/owned-processes.ts';
import { createTestDatabaseUrl } from '../helpers/stores.ts';

const sqlitePath = (url: string) => url.slice('sqlite:'.length);

/** A key of a new account that reads every campaign, as the CLI prints it. */
async function keyFor(databaseUrl: string): Promise<string> {
  await succeed(['accounts', 'create', '--email', 'mitra@example.com'], databaseUrl);
  const created = await succeed(
    [
      'keys',
      'create',
      '--account',
      'mitra@example.com',
      ...CAMPAIGNS.flatMap((id) => ['--scope', `${id}=menu`]),
      '--json',
    ],
    databaseUrl,
  );
  return (JSON.parse(created) as { key: string }).key;
}

/** Every campaign's summary total and the rows its pages hold, through the data API. */
async function totalsAndRows(url: string, key: string) {
  const get = async (path: string) => {
    const response = await fetch(`${url}/developer/v1${path}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    // Its words when it is not a 200: which refusal, for the run that met it.
    expect(response.status, await response.clone().text()).toBe(200);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const seen: Record<string, { total: number; rows: number }> = {};
  for (const id of CAMPAIGNS) {
    const summary = (await get(`/campaigns/${id}/summary`)) as {
      totals: { responses: number; attending: number; notAttending: number };
    };
    let rows = 0;
    let cursor: string | null = null;
    do {
      const page = (await get(
        `/campaigns/${id}/respondents?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      )) as { data: unknown[]; meta: { nextCursor: string | null } };
      rows += page.data.length;
      cursor = page.meta.nextCursor;
    } while (cursor);
    const { responses, attending, notAttending } = summary.totals;
    // No one answered MAYBE in these imports.
    expect(attending + notAttending).toBe(responses);
    seen[id] = { total: responses, rows };
  }
  return seen;
}

// Each test spawns the CLI a dozen times or more: given room for a machine twice as slow.
describe('hadir backup and restore on SQLite', { timeout: 120_000 }, () => {
  let databaseUrl: string;
  let key: string;
  let work: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl('sqlite');
    work = folder();
    writeFileSync(join(work, 'first.json'), importDocument('first', 3_000));
    await succeed(['import', join(work, 'first.json')], databaseUrl);
    key = await keyFor(databaseUrl);
  });

  it('copies the database while it serves and an import writes, and the copy serves a whole snapshot', async () => {
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      // The load is as fast as the server answers, past any partner's budget; the overload
      // guard is for a starved machine, which a test run with an import beside it may be.
      env: { RATE_LIMIT_PER_MINUTE: '1000000', MAX_EVENT_LOOP_DELAY_MS: '60000' },
      ready: /"url":"(http:\/\/[^"]+)"/,
    });
    const url = server.match[1] as string;
    // Serving load for as long as the backup runs.
    let loading = true;
    const load = (async () => {
      let requests = 0;
      while (loading) {
        await totalsAndRows(url, key);
        requests += 1;
      }
      return requests;
    })();
    writeFileSync(join(work, 'second.json'), importDocument('second', 200_000));
    const importing = spawnOwned(HADIR_BIN, ['import', join(work, 'second.json')], {
      env: { ...process.env, ...TEST_SECRET_ENV, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    try {
      // The import has begun to write: the database has grown past what the first one left.
      const before = statSync(sqlitePath(databaseUrl)).size;
      const walOf = () =>
        existsSync(`${sqlitePath(databaseUrl)}-wal`)
          ? statSync(`${sqlitePath(databaseUrl)}-wal`).size
          : 0;
      const started = Date.now();
      while (walOf() < 1 << 20 && Date.now() - started < 30_000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(walOf()).toBeGreaterThan(0);
      expect(before).toBeGreaterThan(0);

      // Begun while the import is still writing (it may end first on a fast machine: the copy
      // is of one moment either way, which is what the restored server checks below).
      const backup = join(work, 'during.sqlite');
      const output = await succeed(['backup', '--to', backup, '--json'], databaseUrl);
      const made = JSON.parse(output) as {
        respondents: number;
        campaigns: number;
        record: { file: string; disclosures: number };
      };
      expect(made.campaigns).toBe(3);
      expect(statSync(backup).mode & 0o777).toBe(0o600);
      // Who received whose data goes with the data: the pages served so far are in its record.
      expect(made.record.file).toBe(join(work, 'during-record.sqlite'));
      expect(statSync(made.record.file).mode & 0o777).toBe(0o600);
      expect(made.record.disclosures).toBeGreaterThan(0);
      expect(readdirSync(work).filter((name) => name.endsWith('.partial'))).toEqual([]);

      loading = false;
      expect(await load).toBeGreaterThan(0);
      expect(await exitOf(importing)).toBe(0);

      // Restored into a fresh folder, served by a server of its own.
      // A folder the restore makes itself.
      const freshUrl = `sqlite:${join(folder(), 'new', 'hadir.sqlite')}`;
      const restored = await succeed(['restore', '--from', backup], freshUrl);
      expect(restored).toContain(`${made.respondents.toLocaleString('en')} respondents`);
      expect(restored).not.toContain('kept at');
      expect(restored).toContain("The backup's disclosure record is in place");
      const reported = await succeed(
        ['disclosures', '--respondent', 'first-0', '--json'],
        freshUrl,
      );
      expect(JSON.stringify(JSON.parse(reported))).toContain('mitra@example.com');
      const copy = await startHadir(['serve', '--port', '0', '--json'], {
        databaseUrl: freshUrl,
        // Every page of the copy is read, however much of the import it holds.
        env: { RATE_LIMIT_PER_MINUTE: '1000000' },
        ready: /"url":"(http:\/\/[^"]+)"/,
      });
      try {
        const seen = await totalsAndRows(copy.match[1] as string, key);
        let rows = 0;
        for (const id of CAMPAIGNS) {
          expect(seen[id]?.total, id).toBe(seen[id]?.rows);
          rows += seen[id]?.rows ?? 0;
        }
        expect(rows).toBe(made.respondents);
      } finally {
        copy.child.kill('SIGTERM');
        await exitOf(copy.child);
      }
    } finally {
      loading = false;
      // The load's last request ends before its server does, whatever failed above.
      await load.catch(() => 0);
      importing.kill('SIGTERM');
      server.child.kill('SIGTERM');
      await exitOf(server.child);
    }
  });

  it('restores only once nothing holds the database, keeps the one it replaced, and erases again who was removed since', async () => {
    const backup = join(work, 'before-erasure.sqlite');
    await succeed(['backup', '--to', backup], databaseUrl);
    expect((await runHadir(['backup', '--to', backup], { databaseUrl })).stderr).toContain(
      'already exists',
    );
    await succeed(['respondents', 'erase', '--campaign', 'satu', '--id', 'first-0'], databaseUrl);

    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      ready: /"url":"(http:\/\/[^"]+)"/,
    });
    const refused = await runHadir(['restore', '--from', backup], { databaseUrl });
    server.child.kill('SIGTERM');
    await exitOf(server.child);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('is open in another process');

    const restored = await succeed(['restore', '--from', backup, '--json'], databaseUrl);
    const answer = JSON.parse(restored) as {
      replacedKeptAt: string;
      erasedAgain: number;
      record: { is: string };
    };
    expect(answer.erasedAgain).toBe(1);
    // The record in place names what was handed over after the backup too: it stays.
    expect(answer.record.is).toBe('kept');
    expect(existsSync(answer.replacedKeptAt)).toBe(true);
    expect(statSync(answer.replacedKeptAt).mode & 0o777).toBe(0o600);
    const found = await succeed(['respondents', 'find', '--value', 'Soto', '--json'], databaseUrl);
    const ids = (JSON.parse(found) as { respondents: Array<{ id: string }> }).respondents.map(
      (row) => row.id,
    );
    expect(ids).not.toContain('first-0');
    expect(ids).toContain('first-2');
  });

  it('refuses a file that is not a whole Hadir database, and leaves the database as it was', async () => {
    const before = await succeed(
      ['backup', '--to', join(work, 'check.sqlite'), '--json'],
      databaseUrl,
    );
    const notSqlite = join(work, 'notes.txt');
    writeFileSync(notSqlite, 'not a database at all, but long enough to look like a header...');
    const damaged = join(work, 'damaged.sqlite');
    const bytes = readFileSync(join(work, 'check.sqlite'));
    // Garbage over pages past the first: SQLite opens it, its integrity check does not pass.
    bytes.fill(0x5a, 8192, Math.min(bytes.length, 40_960));
    writeFileSync(damaged, bytes);
    for (const [file, message] of [
      [notSqlite, 'is not a SQLite database'],
      [damaged, 'integrity'],
      [join(work, 'missing.sqlite'), 'does not exist'],
    ] as const) {
      const result = await runHadir(['restore', '--from', file], { databaseUrl });
      expect(result.status, file).toBe(1);
      expect(result.stderr, file).toMatch(message);
    }
    const after = await succeed(
      ['backup', '--to', join(work, 'check-after.sqlite'), '--json'],
      databaseUrl,
    );
    const {
      file: _a,
      record: _ra,
      ...beforeCounts
    } = JSON.parse(before) as Record<string, unknown>;
    const { file: _b, record: _rb, ...afterCounts } = JSON.parse(after) as Record<string, unknown>;
    expect(afterCounts).toEqual(beforeCounts);
  });
});
