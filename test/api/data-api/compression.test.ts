import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chooseCoding,
  compressedBody,
  MIN_COMPRESSED_BYTES,
} from '../../../src/http/compression.ts';
import { fromJsonText } from '../../../src/http/response-cache.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const PAGE = '/developer/v1/campaigns/nikah/respondents?limit=200';

describe('choosing a content coding', () => {
  it('takes brotli, else gzip, by the client’s weights, and none for a small body', () => {
    const big = MIN_COMPRESSED_BYTES;
    expect(chooseCoding('gzip, deflate, br', big)).toBe('br');
    expect(chooseCoding('gzip', big)).toBe('gzip');
    expect(chooseCoding('br;q=0.5, gzip;q=0.8', big)).toBe('gzip');
    expect(chooseCoding('br;q=0, gzip', big)).toBe('gzip');
    expect(chooseCoding('*', big)).toBe('br');
    expect(chooseCoding('*, br;q=0', big)).toBe('gzip');
    expect(chooseCoding('identity', big)).toBeUndefined();
    expect(chooseCoding(undefined, big)).toBeUndefined();
    expect(chooseCoding('br', big - 1)).toBeUndefined();
  });

  it('compresses an answer once per coding, however often it is sent', async () => {
    const answer = fromJsonText(JSON.stringify({ data: 'x'.repeat(5_000) }), {
      fieldKeys: [],
      rows: 0,
    });
    expect(compressedBody(answer, 'br')).toBe(compressedBody(answer, 'br'));
    expect(brotliDecompressSync(await compressedBody(answer, 'br'))).toEqual(answer.body);
    expect(gunzipSync(await compressedBody(answer, 'gzip'))).toEqual(answer.body);
  });
});

describe.each(ENGINES)('compressed data answers on %s', (engine) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents: Array.from({ length: 200 }, (_, n) => ({
        id: `r${String(n).padStart(3, '0')}`,
        submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
        answers: { nama: `Tamu ${n} Wijayakusuma` },
      })),
    });
    ({ key } = await createTestKey(t.store, t.clock, [{ campaignId: 'nikah', fields: ['nama'] }]));
  });
  afterAll(() => t.close());

  const get = (headers: Record<string, string>) =>
    t.app.inject({
      method: 'GET',
      url: PAGE,
      headers: { authorization: `Bearer ${key}`, ...headers },
    });

  it('sends the same JSON in brotli or gzip when asked, each with a tag of its own', async () => {
    const plain = await get({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    for (const [coding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const answer = await get({ 'accept-encoding': coding });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-encoding']).toBe(coding);
      expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(answer.headers.etag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-${coding}"`);
      expect(decode(answer.rawPayload).toString()).toBe(plain.body);
      expect(answer.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    }
  });

  it('answers 304 to a tag of any coding of the same data, and only once the data is the same', async () => {
    const gzipped = await get({ 'accept-encoding': 'gzip' });
    const again = await get({
      'accept-encoding': 'br',
      'if-none-match': gzipped.headers.etag as string,
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers.etag).toBe(
      `${(gzipped.headers.etag as string).slice(0, -'-gzip"'.length)}-br"`,
    );
  });

  it('leaves a small answer as it is', async () => {
    const small = await t.app.inject({
      method: 'GET',
      url: '/developer/v1/campaigns/nikah/fields',
      headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'br, gzip' },
    });
    expect(small.statusCode).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});
