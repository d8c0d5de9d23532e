import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { openStore } from '../../../src/db/connect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { runHadirInProcess } from '../../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';

/** A small filesystem of the test's own, or why there is none (mounting needs root). */
function mountSmallFilesystem(): { folder: string } | { why: string } {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', folder], { stdio: 'pipe' });
    return { folder };
  } catch (error) {
    return { why: `cannot mount a tmpfs here: ${String((error as Error).message).split('\n')[0]}` };
  }
}

/** Writes zeros into `path` until the filesystem has no space left. */
function fill(path: string): void {
  const file = openSync(path, 'w');
  const chunk = Buffer.alloc(16 * 1024);
  try {
    for (;;) writeSync(file, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(file);
  }
}

const filesystem = mountSmallFilesystem();

describe.skipIf('why' in filesystem)('a full disk under the SQLite store', () => {
  const folder = 'folder' in filesystem ? filesystem.folder : '';
  const databaseUrl = `sqlite:${join(folder, 'hadir.sqlite')}`;
  const filler = join(folder, 'filler');
  let t: TestApp;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    const store = openStore(databaseUrl);
    await migrateToLatest(store);
    t = await startTestApp(store, {
      mailer: { send: async () => {}, close: () => {} },
    });
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      respondents: [{ id: 'r1', submittedAt: '2026-11-01T00:00:00Z' }],
    });
    ({ key, id: keyId } = await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }]));
    await createAccount(t.store, t.clock, {
      email: 'holder@example.test',
      password: 'a-long-enough-password',
      mustChangePassword: false,
    });
  });
  afterAll(async () => {
    rmSync(filler, { force: true });
    await t?.close();
    // Lazily: whatever still holds a file there lets go when it closes.
    execFileSync('umount', ['-l', folder]);
  });

  it('keeps serving reads, refuses writes with 503, and takes them again once space is freed', async () => {
    fill(filler);

    // The key's first use is bookkeeping to write: it must not fail the read.
    for (const path of ['/campaigns', '/campaigns/c/summary']) {
      const response = await t.get(`/developer/v1${path}`, key);
      expect(response.status, path).toBe(200);
    }
    // A page hands respondents over, which the disclosure record must hold first: it waits too.
    const page = await t.get('/developer/v1/campaigns/c/respondents', key);
    expect(page.status).toBe(503);
    expect(page.headers['retry-after']).toBe('60');
    expect(page.raw).not.toContain('r1');
    expect((await t.get('/readyz')).status).toBe(200);

    const login = () =>
      t.app.inject({
        method: 'POST',
        url: '/developer/auth/login',
        payload: { email: 'holder@example.test', password: 'a-long-enough-password' },
      });
    for (let n = 0; n < 3; n++) {
      const refused = await login();
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('60');
      expect(refused.json().error.code).toBe('service_unavailable');
    }
    const warnings = t.logs.filter((line) => String(line.msg).includes('disk is full'));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(t.logs)).not.toContain('"stack"');

    const document = join(mkdtempSync(join(tmpdir(), 'hadir-import-')), 'import.json');
    writeFileSync(
      document,
      JSON.stringify({ campaigns: [{ id: 'd', slug: 'd', title: 'D' }], respondents: [] }),
    );
    const imported = await runHadirInProcess(['import', document], { databaseUrl });
    expect(imported.status).toBe(1);
    expect(imported.stderr).toContain('the disk that holds the database is full');
    expect(imported.stderr).not.toContain('cannot rollback');

    rmSync(filler);
    const afterFreed = await login();
    expect(afterFreed.statusCode, afterFreed.body).toBe(200);
    expect((await t.get('/developer/v1/campaigns/c/respondents', key)).status).toBe(200);
    // Written off the request path, at the next flush: here, as the services close.
    await t.app.close();
    await t.services.close();
    const row = await t.store.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).toBe(t.clock.now());
  });
});
