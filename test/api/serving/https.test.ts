import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { transportOf } from '../../../src/start-requirements.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { makeCertificate } from '../../helpers/certificates.ts';
import { runHadir, startHadir } from '../../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { createTestDatabaseUrl } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

const BASE = '/developer/v1';

/** A GET over HTTPS that accepts any certificate and reports the one the server presented. */
function httpsGet(
  url: string,
): Promise<{ status: number; headers: Record<string, unknown>; certificate: PeerCertificate }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { rejectUnauthorized: false, agent: false }, (response) => {
      const certificate = (response.socket as import('node:tls').TLSSocket).getPeerCertificate();
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, certificate }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the transport a start chooses', () => {
  it('is TLS with both files, a proxy with TRUST_PROXY, plain HTTP only in development', () => {
    expect(transportOf(loadConfig({ TLS_CERT_FILE: 'c.pem', TLS_KEY_FILE: 'k.pem' })).kind).toBe(
      'tls',
    );
    expect(transportOf(loadConfig({ NODE_ENV: 'production', TRUST_PROXY: '10.0.0.1' })).kind).toBe(
      'behind_proxy',
    );
    expect(transportOf(loadConfig({})).kind).toBe('plain_development');
    expect(() => transportOf(loadConfig({ NODE_ENV: 'production' }))).toThrow(
      /TLS_CERT_FILE and TLS_KEY_FILE .* or TRUST_PROXY/,
    );
    expect(() => loadConfig({ TLS_CERT_FILE: 'c.pem' })).toThrow(/TLS_KEY_FILE is missing/);
  });

  it('stops a start with a trusted proxy and no SMTP_URL: the dev mailbox would serve everyone', async () => {
    const result = await runHadir(['serve', '--port', '0'], {
      databaseUrl: await createTestDatabaseUrl('sqlite'),
      env: { TRUST_PROXY: '127.0.0.1' },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/SMTP_URL must be set when TRUST_PROXY is set/);
  });

  it('stops a production start that has neither, naming both', async () => {
    const result = await runHadir(['serve', '--port', '0'], {
      databaseUrl: await createTestDatabaseUrl('sqlite'),
      env: { NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:9' },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/TLS_CERT_FILE and TLS_KEY_FILE/);
    expect(result.stderr).toMatch(/TRUST_PROXY/);
  });
});

describe('behind a proxy that terminates HTTPS, in production', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { trustProxy: '127.0.0.1', requireForwardedHttps: true });
    await seedCampaign(t.store, t.clock, { id: 'c' });
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }])).key;
  });
  afterAll(() => t.close());

  const get = (url: string, from: string, proto?: string) =>
    t.app.inject({
      url,
      remoteAddress: from,
      headers: { authorization: `Bearer ${key}`, ...(proto ? { 'x-forwarded-proto': proto } : {}) },
    });

  it('serves what the proxy received over HTTPS, with HSTS', async () => {
    const response = await get(`${BASE}/campaigns`, '127.0.0.1', 'https');
    expect(response.statusCode).toBe(200);
    expect(response.headers['strict-transport-security']).toBe(
      'max-age=31536000; includeSubDomains',
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each([
    ['forwarded as plain HTTP', '127.0.0.1', 'http'],
    ['forwarded as HTTPS after HTTP', '127.0.0.1', 'https, http'],
    ['with no X-Forwarded-Proto', '127.0.0.1', undefined],
    ['claiming HTTPS from an address that is not the proxy', '203.0.113.5', 'https'],
  ])(
    'refuses a request %s with 403 https_required, never a redirect',
    async (_name, from, proto) => {
      for (const url of [`${BASE}/campaigns`, '/developer/auth/me', `${BASE}/openapi.json`]) {
        const response = await get(url, from, proto);
        expect(response.statusCode, url).toBe(403);
        expect(response.json().error.code).toBe('https_required');
        expect(response.headers.location).toBeUndefined();
        expect(response.headers['strict-transport-security']).toBeUndefined();
      }
    },
  );

  it('still answers health checks from the proxy over plain HTTP', async () => {
    expect((await get('/healthz', '127.0.0.1', 'http')).statusCode).toBe(200);
  });
});

describe('serving HTTPS itself', () => {
  it('listens with TLS_CERT_FILE and TLS_KEY_FILE, sends HSTS, and reloads them on SIGHUP', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'hadir-tls-'));
    const first = makeCertificate(folder, 'first');
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl: await createTestDatabaseUrl('sqlite'),
      ready: /^\{"url":"(https:\/\/[^"]+)"/m,
      env: { TLS_CERT_FILE: first.certFile, TLS_KEY_FILE: first.keyFile },
    });
    onTestFinished(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    const url = server.match[1] as string;

    const answer = await httpsGet(`${url}/healthz`);
    expect(answer.status).toBe(200);
    expect(answer.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(answer.certificate.subject.CN).toBe('first');
    // Plain HTTP to the same port gets no answer from the service.
    await expect(fetch(url.replace('https:', 'http:'))).rejects.toThrow();

    // A renewed certificate at the same paths, then SIGHUP: new connections get it.
    const renewed = makeCertificate(folder, 'renewed');
    execFileSync('cp', [renewed.certFile, first.certFile]);
    execFileSync('cp', [renewed.keyFile, first.keyFile]);
    server.child.kill('SIGHUP');
    await until(
      async () => (await httpsGet(`${url}/healthz`)).certificate.subject.CN === 'renewed',
      'the renewed certificate',
    );
    expect(server.child.exitCode).toBeNull();
  });
});
