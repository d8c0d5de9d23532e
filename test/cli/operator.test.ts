import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitOf, runHadir, runHadirInProcess, startHadir } from '../helpers/cli.ts';
import { countRows, DOCUMENT, writeJson } from '../helpers/operator-data.ts';
import { createTestDatabaseUrl, ENGINES } from '../helpers/stores.ts';

describe.each(ENGINES)('operator CLI on %s', { timeout: 90_000 }, (engine) => {
  it('imports, creates an account and a key, and the served API honours them', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const imported = await runHadir(['import', writeJson(DOCUMENT), '--json'], { databaseUrl });
    expect(imported.stderr).toBe('');
    expect(JSON.parse(imported.stdout)).toEqual({
      campaigns: { upserted: 1, deleted: 0 },
      respondents: { upserted: 2, deleted: 0 },
      stale: 0,
      dropped: { ipAddress: 0, token: 1, guestToken: 0 },
      keptErased: { count: 0, records: [] },
      unknownAnswers: { count: 0, records: [] },
    });

    const account = await runHadir(
      ['accounts', 'create', '--email', 'Mitra@Example.com', '--json'],
      { databaseUrl },
    );
    const created = JSON.parse(account.stdout);
    expect(created).toMatchObject({ email: 'mitra@example.com', mustChangePassword: false });
    expect(created.generatedPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);

    const keyOutput = await runHadir(
      [
        'keys',
        'create',
        '--account',
        'mitra@example.com',
        '--scope',
        // hadiah is not a field of the campaign yet.
        'kawinan=menu,hadiah',
        '--allow-unknown-fields',
        '--expires-in',
        '30d',
        '--json',
      ],
      { databaseUrl },
    );
    expect(keyOutput.status).toBe(0);
    const key = JSON.parse(keyOutput.stdout);
    expect(Object.keys(key).sort()).toEqual(['campaigns', 'expiresAt', 'id', 'key']);
    expect(key.campaigns).toEqual([{ campaignId: 'kawinan', fields: ['menu', 'hadiah'] }]);
    expect(key.key).toMatch(/^hadir_sk_[0-9a-f]{64}$/);
    const days = (Date.parse(key.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    const listed = await runHadir(['keys', 'list', '--json'], { databaseUrl });
    expect(listed.stdout).not.toContain(key.key);
    expect(listed.stdout).not.toContain(key.key.slice(9, 40));
    expect(JSON.parse(listed.stdout).keys).toEqual([
      expect.objectContaining({
        id: key.id,
        account: 'mitra@example.com',
        hint: key.key.slice(-4),
        status: 'active',
        campaigns: [{ id: 'kawinan', fields: ['menu', 'hadiah'] }],
      }),
    ]);

    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      ready: /^\{"url":"(http:\/\/[^"]+)",/m,
    });
    try {
      const base = `${server.match[1]}/developer/v1`;
      const response = await fetch(`${base}/campaigns/kawinan/respondents`, {
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(response.status).toBe(200);
      const body: any = await response.json();
      expect(body.data.map((row: { fields: unknown }) => row.fields)).toEqual([
        { menu: 'Sate' },
        { menu: 'Soto' },
      ]);

      const rotated = JSON.parse(
        (await runHadir(['keys', 'rotate', key.id, '--overlap', '0s', '--json'], { databaseUrl }))
          .stdout,
      );
      expect(Object.keys(rotated).sort()).toEqual(['id', 'key', 'previousKeyValidUntil']);
      const old = await fetch(`${base}/campaigns`, {
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(old.status).toBe(401);
      const fresh = await fetch(`${base}/campaigns`, {
        headers: { authorization: `Bearer ${rotated.key}` },
      });
      expect(fresh.status).toBe(200);

      const deactivated = await runHadir(
        ['accounts', 'deactivate', '--email', 'mitra@example.com', '--json'],
        { databaseUrl },
      );
      expect(JSON.parse(deactivated.stdout)).toMatchObject({ active: false });
      expect(
        (await fetch(`${base}/campaigns`, { headers: { authorization: `Bearer ${rotated.key}` } }))
          .status,
      ).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
      expect(await exitOf(server.child)).toBe(0);
    }
  });

  it('rejects a bad import as a whole, naming each bad record, and writes nothing', async () => {
    const databaseUrl = await createTestDatabaseUrl(engine);
    const bad = {
      campaigns: DOCUMENT.campaigns,
      respondents: [
        ...DOCUMENT.respondents,
        {
          id: 'k3',
          campaignId: 'kawinan',
          submittedAt: 'kemarin',
          attendanceStatus: 'YES',
          answers: {},
        },
        {
          id: 'k4',
          campaignId: 'kawinan',
          submittedAt: '2026-11-01T00:00:00Z',
          attendanceStatus: 'SOMETIMES',
        },
        {
          id: 'k5',
          campaignId: 'kawinan',
          submittedAt: '2026-11-01T00:00:00Z',
          attendanceStatus: 'YES',
          answers: { menu: { a: 1 } },
        },
        { campaignId: 'kawinan', submittedAt: '2026-11-01T00:00:00Z', attendanceStatus: 'YES' },
        {
          id: 'k7',
          campaignId: 'nowhere',
          submittedAt: '2026-11-01T00:00:00Z',
          attendanceStatus: 'YES',
        },
      ],
    };
    const result = await runHadirInProcess(['import', writeJson(bad)], { databaseUrl });
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('nothing was written');
    expect(result.stderr).toContain(
      "respondents[2] (id k3): 'submittedAt' must be an ISO-8601 date-time",
    );
    expect(result.stderr).toContain(
      "respondents[3] (id k4): 'attendanceStatus' must be one of YES, NO, MAYBE",
    );
    expect(result.stderr).toContain("respondents[4] (id k5): answer 'menu'");
    expect(result.stderr).toContain("respondents[5]: 'id' is required: 1 to 128 characters");
    // In the same pass: a campaign neither in the document nor in the database.
    expect(result.stderr).toContain('respondents[6] (id k7): campaign nowhere does not exist');
    expect(await countRows(databaseUrl)).toEqual({ campaigns: 0, respondents: 0 });

    const unknown = await runHadir(['import', '-'], {
      databaseUrl,
      input: JSON.stringify({
        respondents: [
          {
            id: 'x',
            campaignId: 'nowhere',
            submittedAt: '2026-11-01T00:00:00Z',
            attendanceStatus: 'YES',
          },
        ],
      }),
    });
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('respondents[0] (id x): campaign nowhere does not exist');
    const broken = join(mkdtempSync(join(tmpdir(), 'hadir-cli-')), 'broken.json');
    writeFileSync(broken, '{"campaigns": [');
    const notJson = await runHadirInProcess(['import', broken], { databaseUrl });
    expect(notJson.status).not.toBe(0);
    expect(notJson.stderr).toContain(`${broken}: the JSON ends before the document is complete`);
    expect(await countRows(databaseUrl)).toEqual({ campaigns: 0, respondents: 0 });
  });
});
