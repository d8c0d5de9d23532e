import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';

const BASE = '/developer/v1';

describe('llms.txt, docs and skill.zip', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('answers the root with where the docs, the OpenAPI document and the portal are', async () => {
    const root = await t.get('/');
    expect(root.status).toBe(200);
    expect(root.headers['content-type']).toMatch(/^application\/json/);
    for (const path of Object.values(root.body.links as Record<string, string>)) {
      const linked = await t.get(path);
      expect([200, 303]).toContain(linked.status);
    }
    expect(root.body.links).toMatchObject({
      docs: '/developer/v1/docs',
      openapi: '/developer/v1/openapi.json',
      portal: '/developer/portal',
    });
  });

  it('serves llms.txt as plain text in the llms.txt shape, small and complete', async () => {
    const response = await t.get(`${BASE}/llms.txt`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers.etag).toMatch(/^"/);
    const text = response.raw;
    expect(text.split('\n')[0]).toMatch(/^# Hadir RSVP data API/);
    expect(text).toMatch(/\n> Hadir is a read-only/);
    expect(Buffer.byteLength(text)).toBeLessThan(12 * 1024);
    for (const needle of [
      'GET /developer/v1/campaigns/{id}/respondents',
      'GET /developer/v1/campaigns/{id}/changes',
      'limit? (min 1, max 200, default 50)',
      'cursor',
      'R1',
      'R2',
      'R3',
      'R4',
      'Retry-After',
      'hadir_sk_',
      'POST /developer/auth/login',
      'Asia/Jakarta',
      'hadir-mcp',
    ]) {
      expect(text).toContain(needle);
    }
  });

  it('answers /docs with the structured reference as JSON, varying by Accept', async () => {
    const response = await t.get(`${BASE}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers.vary).toBe('Accept');
    expect(response.body.sections.map((section: { id: string }) => section.id)).toEqual([
      'getting-started',
      'fields',
      'paging',
      'filters',
      'agents',
      'rate-limits',
      'incremental-sync',
      'removals',
      'changes',
      'conditional-requests',
      'errors',
    ]);
    expect(response.body.endpoints).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        path: `${BASE}/campaigns/{id}/summary`,
        tag: 'Data',
      }),
    );
    expect(response.body.links.openapi).toBe(`${BASE}/openapi.json`);
  });

  it.each([
    [undefined, 'application/json'],
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'],
    ['text/html;q=0.5, application/json', 'application/json'],
  ])('answers /docs with Accept %s as %s', async (accept, type) => {
    const response = await t.get(`${BASE}/docs`, undefined, accept ? { accept } : {});
    expect(response.headers['content-type']).toMatch(new RegExp(`^${type}`));
    expect(response.headers.vary).toBe('Accept');
  });

  it('serves the same skill.zip bytes on every request and after a restart, with a strong ETag', async () => {
    const first = await t.app.inject({ url: `${BASE}/skill.zip` });
    const again = await t.app.inject({ url: `${BASE}/skill.zip` });
    const restarted = await startTestApp('sqlite');
    const other = await restarted.app.inject({ url: `${BASE}/skill.zip` });
    await restarted.close();
    expect(first.headers['content-type']).toBe('application/zip');
    expect(first.rawPayload.equals(again.rawPayload)).toBe(true);
    expect(first.rawPayload.equals(other.rawPayload)).toBe(true);
    expect(other.headers.etag).toBe(first.headers.etag);
    expect(
      (await t.get(`${BASE}/skill.zip`, undefined, { 'if-none-match': String(first.headers.etag) }))
        .status,
    ).toBe(304);
  });

  it('unpacks with unzip into a skill whose example client syncs a campaign correctly (R1 to R4)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'hadir-skill-'));
    writeFileSync(
      join(folder, 'skill.zip'),
      (await t.app.inject({ url: `${BASE}/skill.zip` })).rawPayload,
    );
    await promisify(execFile)('unzip', ['-q', 'skill.zip'], { cwd: folder });
    const skill = join(folder, 'hadir-rsvp-api');
    const markdown = readFileSync(join(skill, 'SKILL.md'), 'utf8');
    expect(markdown).toMatch(/^---\nname: hadir-rsvp-api\ndescription: .+\n---\n/);
    expect(markdown).toContain('hadir-mcp');
    expect(
      JSON.parse(readFileSync(join(skill, 'reference/openapi.json'), 'utf8')).info.version,
    ).toBe('1.0.0');

    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await seedCampaign(t.store, t.clock, {
      id: 'contoh',
      respondents: Array.from({ length: 250 }, (_, i) => ({
        id: `x${i}`,
        submittedAt: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
        answers: { menu: i % 2 ? 'Sate' : '  ' },
      })),
    });
    const { key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'contoh', fields: ['menu'] },
    ]);
    // Asynchronously: the server that answers the script runs in this process.
    const run = async () => {
      const script = join(skill, 'scripts/sync-example.mjs');
      const { stdout } = await promisify(execFile)(
        'node',
        [script, 'contoh', join(folder, 'state.json')],
        {
          env: { ...process.env, HADIR_BASE_URL: baseUrl, HADIR_API_KEY: key },
        },
      );
      return stdout;
    };
    expect(await run()).toContain('contoh: 250 rows stored');
    await importRespondents(t.store, t.clock, 'contoh', [
      { id: 'x0', submittedAt: '2026-11-02T00:00:00Z', answers: { menu: 'Soto' } },
      { id: 'x250', submittedAt: '2026-11-02T00:00:01Z' },
    ]);
    expect(await run()).toContain('contoh: 251 rows stored, watermark 2026-11-02T00:00:01.000Z');
    const state = JSON.parse(readFileSync(join(folder, 'state.json'), 'utf8'));
    expect(state.rows.x0.fields).toEqual({ menu: 'Soto' });
    expect(state.rows.x2.fields).toEqual({});
    expect(state.rows.x1.fields).toEqual({ menu: 'Sate' });
  });
});
