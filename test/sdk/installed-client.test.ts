import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

describe('@hadir/client as installed', () => {
  let t: TestApp;
  let base: string;
  const script = `${ROOT}test-results/first-sync-${process.pid}.mjs`;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await seedCampaign(t.store, t.clock, {
      id: 'pernikahan-rina-bayu',
      respondents: Array.from({ length: 5 }, (_, index) => ({
        id: `r${index}`,
        submittedAt: `2026-11-0${index + 1}T00:00:00Z`,
        answers: {},
      })),
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    rmSync(script, { force: true });
    await t.close();
  });

  it('runs the README snippet as printed, after npm ci built the package', async () => {
    const readme = readFileSync(`${ROOT}packages/client/README.md`, 'utf8');
    const snippet = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toContain("from '@hadir/client'");
    mkdirSync(`${ROOT}test-results`, { recursive: true });
    writeFileSync(script, snippet as string);
    const { key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'pernikahan-rina-bayu', fields: [] },
    ]);
    const { stdout } = await promisify(execFile)(process.execPath, [script], {
      cwd: ROOT,
      env: { ...process.env, HADIR_BASE_URL: base, HADIR_API_KEY: key },
    });
    expect(stdout).toBe('5 respondents\n');
  });
});
