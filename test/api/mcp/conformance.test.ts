import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDocument } from '../../../src/demo/demo-data.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey } from '../../helpers/factories.ts';
import { listen, WEDDING } from '../../helpers/mcp-client.ts';
import { spawnOwned } from '../../helpers/owned-processes.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The project's Node.js 24 (the suite needs 22 or later). */
const NODE = join(ROOT, 'node_modules/.bin/node');
const CONFORMANCE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/**
 * The scenarios of the official suite that apply to a tools-only server that needs a key. The
 * others test what it does not offer: logging, completions, resources, prompts, streams, and
 * tools the suite defines (test_simple_text, sampling, elicitation…).
 */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

/**
 * A proxy in front of the endpoint that adds the key, as the suite's client sends none; every
 * other header (Host, Origin) goes through as the suite sent it.
 */
function keyAddingProxy(upstreamOf: () => { target: string; key: string }): Promise<Server> {
  const proxy = createServer((incoming, outgoing) => {
    const { target, key } = upstreamOf();
    const { hostname, port } = new URL(target);
    const upstream = forward(
      {
        hostname,
        port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

function runSuite(url: string, scenario: string, cwd: string) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawnOwned(NODE, [CONFORMANCE, 'server', '--url', url, '--scenario', scenario], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('the MCP conformance suite against the hosted endpoint', () => {
  let t: TestApp;
  let proxy: Server;
  let url: string;
  let results: string;

  beforeAll(async () => {
    const upstream = { target: '', key: '' };
    proxy = await keyAddingProxy(() => upstream);
    const origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    // The suite's client calls from the proxy's own origin, which the operator allows here.
    t = await startTestApp('sqlite', { mcpAllowedOrigins: [origin] });
    upstream.target = await listen(t);
    await importDocument(t.store, t.clock, demoDocument());
    upstream.key = (
      await createTestKey(t.store, t.clock, [{ campaignId: WEDDING, fields: [] }])
    ).key;
    url = `${origin}/developer/mcp`;
    results = mkdtempSync(join(tmpdir(), 'hadir-conformance-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await t?.close();
    if (results) rmSync(results, { recursive: true, force: true });
  });

  it.each(SCENARIOS)('passes %s', async (scenario) => {
    const { code, output } = await runSuite(url, scenario, results);
    expect(output).not.toMatch(/FAILURE/);
    expect(output, output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(code, output).toBe(0);
  });
});
