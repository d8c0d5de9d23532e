import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.ts';
import { makeCertificate } from '../../helpers/certificates.ts';
import { exitOf, startHadir } from '../../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { type RunningNginx, startShippedNginx } from '../../helpers/nginx.ts';
import { freePort } from '../../helpers/postgres-cluster.ts';
import { createTestDatabaseUrl, openTestStore } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  raw: Buffer;
}

/**
 * One request from a chosen address of this machine (127.0.0.2 is a client other than the proxy
 * at 127.0.0.1), over HTTPS when `ca` is given.
 */
function send(
  url: string,
  options: {
    from: string;
    ca?: Buffer;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<Answer> {
  const target = new URL(url);
  const agent = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = agent.request(
      target,
      {
        method: options.method ?? 'GET',
        localAddress: options.from,
        headers: { host: 'hadir.example.com', ...options.headers },
        ...(options.ca ? { ca: options.ca } : {}),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            raw: Buffer.concat(chunks),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

describe('Hadir behind nginx (deploy/nginx-hadir.conf), with TRUST_PROXY', () => {
  let folder: string;
  let nginx: RunningNginx;
  let hadir: Awaited<ReturnType<typeof startHadir>>;
  let ca: Buffer;
  let key: string;
  let hadirPort: number;
  let tls: string;
  let plain: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'hadir-nginx-'));
    const cert = makeCertificate(folder, 'proxy', ['hadir.example.com']);
    ca = readFileSync(cert.certFile);
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const store = await openTestStore(databaseUrl);
    await seedCampaign(store, systemClock, {
      id: 'c',
      respondents: Array.from({ length: 40 }, (_, n) => ({
        id: `guest-${n}`,
        submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
      })),
    });
    key = (await createTestKey(store, systemClock, [{ campaignId: 'c', fields: [] }])).key;
    await store.close();

    hadirPort = await freePort();
    hadir = await startHadir(['serve', '--port', String(hadirPort), '--json'], {
      databaseUrl,
      env: {
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        TRUST_PROXY: '127.0.0.1',
        PUBLIC_URL: 'https://hadir.example.com',
        SMTP_URL: 'smtp://127.0.0.1:9',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      },
      ready: /"url":"http/,
    });

    nginx = await startShippedNginx(folder, [hadirPort], cert);
    tls = nginx.tls;
    plain = nginx.plain;
  });

  afterAll(async () => {
    await nginx?.stop();
    hadir?.child.kill('SIGTERM');
    if (hadir) expect(await exitOf(hadir.child)).toBe(0);
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('answers a data request over HTTPS, with HSTS', async () => {
    const answer = await send(`${tls}/developer/v1/campaigns`, {
      from: '127.0.0.2',
      ca,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as { data: Array<{ id: string }> }).data[0]?.id).toBe('c');
    expect(answer.headers['strict-transport-security']).toMatch(/^max-age=31536000/);
  });

  it("passes Hadir's compressed answer on as it came, with its Vary", async () => {
    const answer = await send(`${tls}/developer/v1/campaigns/c/respondents?limit=40`, {
      from: '127.0.0.2',
      ca,
      headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'br' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers.vary).toContain('Accept-Encoding');
    const page = JSON.parse(brotliDecompressSync(answer.raw).toString()) as { data: unknown[] };
    expect(page.data).toHaveLength(40);
  });

  it('refuses plain HTTP through the proxy with 403 https_required, never a redirect', async () => {
    const answer = await send(`${plain}/developer/v1/campaigns`, {
      from: '127.0.0.2',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.code).toBe('https_required');
    expect(answer.headers.location).toBeUndefined();
  });

  it("logs the client's address, not the proxy's nor one the client wrote itself", async () => {
    const answer = await send(`${tls}/developer/v1/campaigns/c/summary`, {
      from: '127.0.0.2',
      ca,
      headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '203.0.113.9' },
    });
    expect(answer.status).toBe(200);
    type Line = { msg?: string; route?: string; clientAddress?: string };
    const summaryLine = () =>
      hadir
        .output()
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as Line)
        .find((entry) => entry.msg === 'data access' && entry.route?.endsWith('/summary'));
    await until(() => summaryLine() !== undefined, 'the access line');
    const line = summaryLine() as Line;
    expect(line.clientAddress).toBe('127.0.0.2');
  });

  it("counts the portal's per-address sign-in budget by the client's address", async () => {
    const login = (from: string, n: number) =>
      send(`${tls}/developer/auth/login`, {
        from,
        ca,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `nobody${n}@example.com`, password: 'not the password 1' }),
      });
    const statuses: number[] = [];
    for (let n = 0; n < 21; n++) statuses.push((await login('127.0.0.2', n)).status);
    expect(statuses.slice(0, 20).every((status) => status === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
    // Another client behind the same proxy has a budget of its own.
    expect((await login('127.0.0.3', 99)).status).toBe(401);
  });

  it('sets portal cookies with the __Host- prefix and Secure', async () => {
    const answer = await send(`${tls}/developer/portal/sign-in?lang=en`, { from: '127.0.0.2', ca });
    expect(answer.status).toBe(200);
    const cookies = answer.headers['set-cookie'] ?? [];
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) {
      expect(cookie).toMatch(/^__Host-/);
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; Path=\//);
    }
  });

  it("refuses a forged X-Forwarded-Proto sent straight to Hadir's port", async () => {
    const answer = await send(`http://127.0.0.1:${hadirPort}/developer/v1/campaigns`, {
      from: '127.0.0.2',
      headers: {
        authorization: `Bearer ${key}`,
        'x-forwarded-proto': 'https',
        'x-forwarded-for': '203.0.113.9',
      },
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.code).toBe('https_required');
  });
});
