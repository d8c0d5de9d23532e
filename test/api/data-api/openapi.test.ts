import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validate } from '@readme/openapi-parser';
import { createConfig, lint } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDocument } from '../../../src/import/import.service.ts';
import { API_PATHS } from '../../helpers/api-paths.ts';
import { startTestApp, type TestApp, type TestResponse } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';

const BASE = '/developer/v1';

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: any;

  beforeAll(async () => {
    // Eight counted key requests in the contract test, so its ninth is the 429 it checks.
    t = await startTestApp('sqlite', { rateLimitPerMinute: 9 });
    document = (await t.get(`${BASE}/openapi.json`)).body;
  });
  afterAll(() => t.close());

  it('is served without a key, cacheable, with a strong ETag and 304 on a match', async () => {
    const response = await t.get(`${BASE}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const again = await t.get(`${BASE}/openapi.json`, undefined, {
      'if-none-match': String(response.headers.etag),
    });
    expect(again.status).toBe(304);
  });

  it('passes a real OpenAPI validator', async () => {
    await expect(validate(structuredClone(document))).resolves.toMatchObject({ valid: true });
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lint({
      ref: fileURLToPath(new URL('../../../openapi/openapi.json', import.meta.url)),
      config,
    });
    const found = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
    expect(found).toEqual([]);
  });

  it('names its operations, its server, its license and its shared schemas', () => {
    const operations = Object.values(document.paths).flatMap((methods: any) =>
      Object.values(methods),
    ) as Array<{ operationId: string }>;
    const ids = operations.map((operation) => operation.operationId);
    expect(ids).toEqual(expect.arrayContaining(['listCampaigns', 'listRespondents', 'login']));
    expect(new Set(ids).size).toBe(operations.length);
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    // The package is UNLICENSED; the reference says the same in SPDX terms.
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(pkg.license).toBe('UNLICENSED');
    expect(document.info.license).toEqual({
      name: 'Proprietary, all rights reserved',
      identifier: 'LicenseRef-Proprietary',
    });
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Campaign', 'Summary', 'Respondent', 'PageMeta', 'Error']),
    );
    const respondents = document.paths[`${BASE}/campaigns/{id}/respondents`].get.responses;
    const schemaOf = (status: string) => respondents[status].content['application/json'].schema;
    expect(schemaOf('200')).toEqual({ $ref: '#/components/schemas/RespondentsPage' });
    expect(schemaOf('404')).toEqual({ $ref: '#/components/schemas/Error' });
    expect(document.components.schemas.RespondentsPage.properties).toEqual({
      data: { type: 'array', items: { $ref: '#/components/schemas/Respondent' } },
      meta: { $ref: '#/components/schemas/PageMeta' },
    });
    // The description of an error stays with its status, not with the shared schema.
    expect(respondents['429'].description).toMatch(/^rate_limited/);
    expect(document.components.schemas.Error.description).toBeUndefined();
  });

  it('never tells clients that Hadir answers 422', () => {
    expect(JSON.stringify(document)).not.toMatch(/422/);
  });

  it('is the committed openapi/openapi.json (run npm run openapi after changing a route)', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
    );
    expect(document).toEqual(committed);
  });

  it('describes every endpoint, its parameters with their bounds, its errors and its security', () => {
    const paths = Object.keys(document.paths);
    // Every route is described, the portal pages (for people) are not.
    expect(paths.filter((path) => path.startsWith('/developer/portal'))).toEqual([]);
    for (const path of API_PATHS) {
      expect(paths).toContain(path);
    }
    const respondents = document.paths[`${BASE}/campaigns/{id}/respondents`].get;
    const parameter = (name: string) =>
      respondents.parameters.find((p: { name: string }) => p.name === name);
    expect(parameter('limit').schema).toMatchObject({ minimum: 1, maximum: 200, default: 50 });
    expect(parameter('page').schema).toMatchObject({ minimum: 1 });
    expect(parameter('since').schema).toMatchObject({ format: 'date-time' });
    expect(parameter('cursor')).toBeDefined();
    expect(Object.keys(respondents.responses).sort()).toEqual([
      '200',
      '304',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
    expect(Object.keys(respondents.responses['429'].headers)).toContain('Retry-After');
    expect(Object.keys(respondents.responses['304'].headers)).toContain('ETag');
    expect(respondents.security).toEqual([{ apiKey: [] }]);
    for (const rule of ['R1', 'R2', 'R3', 'R4']) expect(respondents.description).toContain(rule);
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(document.components.securitySchemes.apiKey.bearerFormat).toContain('hadir_sk_');
  });

  it('matches what the server really sends, headers included (contract)', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    // The document itself is the schema store, so #/components/... references resolve.
    ajv.addSchema({ ...document, $id: 'openapi.json' });
    const pointer = (...parts: string[]) =>
      parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
    const check = (path: string, status: number, response: TestResponse) => {
      const described = document.paths[path].get.responses[String(status)];
      if (described.content) {
        const content = pointer('paths', path, 'get', 'responses', String(status), 'content');
        const valid = ajv.validate(
          { $ref: `openapi.json#/${content}/${pointer('application/json')}/schema` },
          response.body,
        );
        expect(valid, `${path} ${status}: ${ajv.errorsText()}`).toBe(true);
      }
      for (const header of Object.keys(described.headers)) {
        expect(response.headers, `${path} ${status} ${header}`).toHaveProperty(
          header.toLowerCase(),
        );
      }
    };
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [{ key: 'menu', type: 'RADIO' }],
      respondents: [
        {
          id: 'r1',
          submittedAt: '2026-11-01T00:00:00Z',
          answers: { menu: 'Sate', alergi: ['Susu'] },
        },
        { id: 'r2', submittedAt: '2026-11-02T00:00:00Z', attendanceStatus: 'MAYBE' },
      ],
    });
    await seedCampaign(t.store, t.clock, { id: 'other' });
    // One who left, for the removals feed to list.
    await importDocument(t.store, t.clock, { respondents: [{ id: 'r2', deleted: true }] });
    const { key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'c', fields: ['menu', 'alergi'] },
    ]);
    const list = `${BASE}/campaigns`;
    const summary = `${BASE}/campaigns/{id}/summary`;
    const respondents = `${BASE}/campaigns/{id}/respondents`;
    const removals = `${BASE}/campaigns/{id}/removals`;
    const changes = `${BASE}/campaigns/{id}/changes`;
    const fields = `${BASE}/campaigns/{id}/fields`;
    const cases: Array<[string, string, string | undefined, number]> = [
      [list, `${BASE}/campaigns`, key, 200],
      [summary, `${BASE}/campaigns/c/summary`, key, 200],
      [summary, `${BASE}/campaigns/c/summary`, key, 304], // not counted
      [respondents, `${BASE}/campaigns/c/respondents?limit=1`, key, 200],
      [respondents, `${BASE}/campaigns/c/respondents?limit=500`, key, 400],
      [removals, `${BASE}/campaigns/c/removals?limit=1`, key, 200],
      [changes, `${BASE}/campaigns/c/changes`, key, 200],
      [changes, `${BASE}/campaigns/c/changes`, key, 304], // not counted
      [fields, `${BASE}/campaigns/c/fields`, key, 200],
      [summary, `${BASE}/campaigns/other/summary`, key, 403],
      [summary, `${BASE}/campaigns/nope/summary`, key, 404],
      [list, `${BASE}/campaigns`, undefined, 401],
      [list, `${BASE}/campaigns`, key, 429],
    ];
    const etags = new Map<string, string>();
    for (const [path, url, credential, status] of cases) {
      const conditional: Record<string, string> =
        status === 304 ? { 'if-none-match': etags.get(url) ?? '' } : {};
      const response = await t.get(url, credential, conditional);
      if (response.headers.etag) etags.set(url, String(response.headers.etag));
      expect(response.status, url).toBe(status);
      check(path, status, response);
    }
  });
});
