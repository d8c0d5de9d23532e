import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmtpMailer } from '../../src/mail/mailer.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { spawnOwned } from '../helpers/owned-processes.ts';
import { signedInPages } from '../helpers/page-browser.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PACKAGES = join(ROOT, 'dist/packages');
const WEDDING = 'pernikahan-rina-bayu';

/**
 * The machine's own PATH without this repository's folders: the installed tools run on the
 * plain `node` a partner has (the repository's own Node.js is not theirs), found by npm's links.
 */
const PLAIN_PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((folder) => !folder.startsWith(ROOT))
  .join(delimiter);

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<Ran>((resolve, reject) => {
    const child = spawnOwned(command, args, {
      cwd,
      env: { HOME: process.env.HOME ?? cwd, PATH: PLAIN_PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The newest change to a package's sources or manifest, to tell a stale tarball. */
function newestSource(name: string): number {
  const folder = join(ROOT, 'packages', name);
  const times = [statSync(join(folder, 'package.json')).mtimeMs];
  for (const file of readdirSync(join(folder, 'src'))) {
    times.push(statSync(join(folder, 'src', file)).mtimeMs);
  }
  return Math.max(...times);
}

describe('the client packages as a partner installs them', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let base = '';
  let folder: string;
  let key: string;
  let plainNode: string;
  let installLines: string[];
  /** The hosted MCP entries the Get started page shows, by host. */
  let hostedEntries: Record<string, string>;

  beforeAll(async () => {
    for (const name of ['client', 'sync', 'mcp', 'relay']) {
      const tarball = readdirSync(PACKAGES).find((file) => file.startsWith(`hadir-${name}-`));
      expect(tarball, `dist/packages has no ${name} tarball: run npm run build`).toBeDefined();
      expect(
        statSync(join(PACKAGES, tarball as string)).mtimeMs,
        `dist/packages/${tarball} is older than packages/${name}: run npm run build`,
      ).toBeGreaterThanOrEqual(newestSource(name));
    }
    smtp = await startSmtpServer();
    t = await startTestApp('sqlite', {
      packagesFolder: PACKAGES,
      mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
      publicUrl: () => base,
    });
    await seedCampaign(t.store, t.clock, {
      id: WEDDING,
      respondents: Array.from({ length: 5 }, (_, index) => ({
        id: `r${index}`,
        submittedAt: `2026-11-0${index + 1}T00:00:00Z`,
        answers: { nama: `Tamu ${index}` },
      })),
    });
    key = (await createTestKey(t.store, t.clock, [{ campaignId: WEDDING, fields: ['nama'] }])).key;
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    folder = mkdtempSync(join(tmpdir(), 'hadir-partner-'));
    writeFileSync(join(folder, 'package.json'), '{ "private": true }\n');
    plainNode = (await run('node', ['--version'], folder)).stdout.trim();

    // The install lines exactly as the Get started page shows them to a signed-in holder.
    const { browser } = await signedInPages(t, smtp, 'partner@example.test');
    const page = (await browser.get('/developer/portal/start')).body;
    hostedEntries = Object.fromEntries(
      [...page.matchAll(/<code id="start-mcp-(claude-code|cursor|vscode)">([^<]*)<\/code>/g)].map(
        (match) => [
          match[1] as string,
          (match[2] as string)
            .replaceAll('&quot;', '"')
            .replaceAll('&#x2F;', '/')
            .replaceAll('&#x27;', "'")
            .replaceAll('&amp;', '&'),
        ],
      ),
    );
    installLines = [...page.matchAll(/<code id="start-(?:sdk|sync|mcp)-install">([^<]*)<\/code>/g)]
      .map((match) => (match[1] as string).replaceAll('\\\n  ', ''))
      .map((line) => line.replaceAll('&#x2F;', '/'));
  }, 60_000);
  afterAll(async () => {
    if (folder) rmSync(folder, { recursive: true, force: true });
    await t?.close();
    await smtp?.close();
  });

  it('connects an agent to the hosted endpoint by the entries the Get started page shows', async () => {
    expect(Object.keys(hostedEntries).sort()).toEqual(['claude-code', 'cursor', 'vscode']);
    expect(hostedEntries['claude-code']).toContain(`${base}/developer/mcp`);
    const cursor = JSON.parse(hostedEntries.cursor as string).mcpServers.hadir;
    const vscode = JSON.parse(hostedEntries.vscode as string).servers.hadir;
    expect(vscode.type).toBe('http');
    for (const entry of [cursor, vscode]) {
      // The host puts the key from its environment in place of its placeholder.
      const headers = {
        Authorization: (entry.headers.Authorization as string).replace(
          `${'$'}{env:HADIR_API_KEY}`,
          key,
        ),
      };
      const agent = new Client({ name: 'host', version: '1.0.0' });
      await agent.connect(
        new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } }),
      );
      try {
        expect((await agent.listTools()).tools).toHaveLength(6);
      } finally {
        await agent.close();
      }
    }
  });

  it('installs from the addresses the Get started page shows, with plain npm', async () => {
    expect(installLines).toHaveLength(3);
    for (const line of installLines) {
      const [npm, install, ...tarballs] = line.split(' ');
      expect([npm, install]).toEqual(['npm', 'install']);
      const installed = await run(
        'npm',
        ['install', '--no-audit', '--no-fund', ...tarballs],
        folder,
      );
      expect(installed.status, installed.stderr).toBe(0);
    }
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@hadir/client',
      '@hadir/mcp',
      '@hadir/sync',
    ]);
    // Compiled: nothing of TypeScript's tooling came with them.
    expect(readdirSync(join(folder, 'node_modules'))).not.toContain('tsx');
    expect(readdirSync(join(folder, 'node_modules'))).not.toContain('typescript');
  }, 120_000);

  it("runs the SDK's README snippet there: its first request against a running server", async () => {
    const readme = readFileSync(join(folder, 'node_modules/@hadir/client/README.md'), 'utf8');
    const snippet = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toContain("from '@hadir/client'");
    writeFileSync(join(folder, 'first-sync.mjs'), snippet as string);
    const ran = await run('node', ['first-sync.mjs'], folder, {
      HADIR_BASE_URL: base,
      HADIR_API_KEY: key,
    });
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toBe('5 respondents\n');
  });

  it('runs npx hadir-sync there, and a sync where this Node.js has SQLite built in', async () => {
    const help = await run('npx', ['hadir-sync', '--help'], folder);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: hadir-sync --base-url URL/);
    const synced = await run(
      'npx',
      [
        'hadir-sync',
        '--base-url',
        base,
        '--api-key-env',
        'HADIR_API_KEY',
        '--all',
        '--to',
        'sqlite:./mirror.sqlite',
      ],
      folder,
      { HADIR_API_KEY: key },
    );
    const [major, minor] = plainNode.slice(1).split('.').map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 16)) {
      expect(synced.stderr).toBe('');
      expect(synced.status).toBe(0);
    } else {
      expect(synced.stderr).toContain('needs Node.js 22.16 or later');
      expect(synced.status).toBe(1);
    }
  }, 60_000);

  it('starts hadir-mcp from /, as agent hosts do, by the entry it prints', async () => {
    const page = (
      await (
        await signedInPages(t, smtp, 'agent@example.test')
      ).browser.get('/developer/portal/start')
    ).body;
    const shown = /<code id="start-mcp">([^<]*)<\/code>/.exec(page)?.[1]?.replaceAll('&#x2F;', '/');
    expect(shown).toBe(`HADIR_BASE_URL=${base} npx --no hadir-mcp print-config`);
    const printed = await run('npx', ['--no', 'hadir-mcp', 'print-config'], folder, {
      HADIR_BASE_URL: base,
    });
    expect(printed.status, printed.stderr).toBe(0);
    const entry = JSON.parse(printed.stdout).mcpServers.hadir;
    expect(entry.command).toMatch(/^\//);
    expect(entry.args[0]).toBe(join(folder, 'node_modules/@hadir/mcp/bin/hadir-mcp.js'));
    expect(entry.env).toEqual({ HADIR_BASE_URL: base, HADIR_API_KEY: 'hadir_sk_… (your key)' });
    const client = new Client({ name: 'partner', version: '1.0.0' });
    try {
      await client.connect(
        new StdioClientTransport({
          command: entry.command,
          args: entry.args,
          cwd: '/',
          // A host's environment: no PATH to this folder, the key put in place of the placeholder.
          env: { HOME: folder, HADIR_BASE_URL: base, HADIR_API_KEY: key },
          stderr: 'pipe',
        }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('list_respondents');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('runs hadir-sync from / by its absolute path, and a refused SQLite mirror leaves no file', async () => {
    const command = join(folder, 'node_modules/.bin/hadir-sync');
    const help = await run(command, ['--help'], '/');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: hadir-sync --base-url URL/);
    const target = join(folder, 'refused', 'mirror.sqlite');
    const synced = await run(
      command,
      ['--base-url', base, '--api-key-env', 'HADIR_API_KEY', '--all', '--to', `sqlite:${target}`],
      '/',
      { HADIR_API_KEY: key },
    );
    const [major, minor] = plainNode.slice(1).split('.').map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 16)) {
      expect(synced.status, synced.stderr).toBe(0);
    } else {
      expect(synced.stderr).toContain('needs Node.js 22.16 or later');
      expect(existsSync(target)).toBe(false);
    }
  }, 60_000);

  it("installs the platform's relay from its file, which says what to set", async () => {
    const relay = readdirSync(PACKAGES).find((file) => file.startsWith('hadir-relay-')) as string;
    const installed = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', join(PACKAGES, relay)],
      folder,
    );
    expect(installed.status, installed.stderr).toBe(0);
    // From /, by its absolute path, as deploy/hadir-relay.service starts it.
    const command = join(folder, 'node_modules/.bin/hadir-relay');
    const started = await run(command, [], '/');
    expect(started.status).toBe(2);
    expect(started.stderr).toContain('set HADIR_INGEST_URL, HADIR_INGEST_TOKEN, RELAY_SOURCE_URL');
    // Set up, it says when each line was written; a source it cannot reach is named.
    const child = spawnOwned(command, [], {
      cwd: '/',
      env: {
        PATH: PLAIN_PATH,
        HADIR_INGEST_URL: base,
        HADIR_INGEST_TOKEN: 'hadir_it_unused',
        RELAY_SOURCE_URL: 'postgres://relay@127.0.0.1:1/platform',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr?.on('data', (chunk) => {
          said += chunk;
          if (said.split('\n').length > 2) resolve();
        });
        child.once('exit', () => reject(new Error(`hadir-relay exited: ${said}`)));
      });
    } finally {
      child.kill();
    }
    const first = said.split('\n')[0] as string;
    expect(first).toMatch(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z hadir-relay: draining hadir_outbox into /,
    );
  }, 60_000);

  it("serves only the partners' tarballs, and refuses any other name in words", async () => {
    const relay = readdirSync(PACKAGES).find((file) => file.startsWith('hadir-relay-'));
    const answer = await fetch(`${base}/developer/packages/${relay}`);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
      'hadir-client-',
    );
    const traversal = await fetch(`${base}/developer/packages/..%2F..%2Fpackage.json`);
    expect(traversal.status).toBe(404);
  });
});
