import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';

const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
const BASE = '/developer/v1';

/** Type-checks `source` against the generated `paths`; resolves to tsc's exit status and output. */
async function typeCheck(folder: string, source: string) {
  writeFileSync(join(folder, 'check.ts'), source);
  try {
    // From the scratch folder, so no project types are picked up: only the generated file counts.
    const args = [TSC, '--noEmit', '--strict', '--exactOptionalPropertyTypes', 'check.ts'];
    await promisify(execFile)('node', args, { cwd: folder });
    return { status: 0, output: '' };
  } catch (error) {
    return { status: 1, output: String((error as { stdout?: string }).stdout) };
  }
}

describe('a client generated from openapi.json', () => {
  let t: TestApp;
  let folder: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    folder = mkdtempSync(join(tmpdir(), 'hadir-generated-'));
    const document = (await t.get(`${BASE}/openapi.json`)).body;
    writeFileSync(join(folder, 'hadir-api.ts'), astToString(await openapiTS(document)));
  });
  afterAll(() => t.close());

  it('type-checks against real responses, and rejects a response that breaks the contract', async () => {
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: [
        {
          id: 'r1',
          submittedAt: '2026-11-01T00:00:00Z',
          answers: { menu: 'Sate', alergi: ['Susu'] },
        },
      ],
    });
    const { key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'c', fields: ['menu', 'alergi'] },
    ]);
    const campaigns = (await t.get(`${BASE}/campaigns`, key)).body;
    const summary = (await t.get(`${BASE}/campaigns/c/summary`, key)).body;
    const respondents = (await t.get(`${BASE}/campaigns/c/respondents`, key)).body;
    const notFound = (await t.get(`${BASE}/campaigns/nope/summary`, key)).body;
    const body = (path: string, status: number) =>
      `paths['${path}']['get']['responses'][${status}]['content']['application/json']`;
    const source = (respondentsLiteral: unknown) => `import type { paths } from './hadir-api';
const campaigns: ${body(`${BASE}/campaigns`, 200)} = ${JSON.stringify(campaigns)};
const summary: ${body(`${BASE}/campaigns/{id}/summary`, 200)} = ${JSON.stringify(summary)};
const respondents: ${body(`${BASE}/campaigns/{id}/respondents`, 200)} = ${JSON.stringify(respondentsLiteral)};
const notFound: ${body(`${BASE}/campaigns/{id}/summary`, 404)} = ${JSON.stringify(notFound)};
export { campaigns, summary, respondents, notFound };
`;
    const real = await typeCheck(folder, source(respondents));
    expect(real.output).toBe('');
    expect(real.status).toBe(0);

    const broken = structuredClone(respondents);
    broken.data[0].attendanceStatus = 'PERHAPS';
    const rejected = await typeCheck(folder, source(broken));
    expect(rejected.status).toBe(1);
    expect(rejected.output).toContain('PERHAPS');
  });
});
