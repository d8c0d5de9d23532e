import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { type ProcessSettings, settingsFor } from '../../src/process-memory.ts';
import { exitOf, TEST_SECRET_ENV } from '../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { postMcp } from '../helpers/mcp-client.ts';
import { spawnOwned } from '../helpers/owned-processes.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What a checkout holds that a build reads (the tests, docs and bench are not needed). */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'bin',
  'src',
  'scripts',
  'packages',
];

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${command} ${args.join(' ')} failed: ${stderr || error.message}`))
        : resolve(stdout),
    );
  });
}

/**
 * As an operator deploys: a copy of the sources is built with the development dependencies, then
 * installed with `npm ci --omit=dev --workspaces=false`, and served from there by ./bin/hadir.
 */
describe('a production install: npm run build, then npm ci --omit=dev --workspaces=false', () => {
  let folder: string;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'hadir-install-'));
    for (const path of SOURCES) {
      cpSync(join(ROOT, path), join(folder, path), {
        recursive: true,
        filter: (source) => !/\/(node_modules|dist)(\/|$)/.test(source.slice(ROOT.length)),
      });
    }
    // The build borrows this checkout's development dependencies, then they go.
    symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
    await run('npm', ['run', 'build'], folder);
    unlinkSync(join(folder, 'node_modules'));
    await run(
      'npm',
      ['ci', '--omit=dev', '--workspaces=false', '--prefer-offline', '--no-audit', '--no-fund'],
      folder,
    );
  }, 600_000);
  afterAll(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('has no TypeScript tooling and no Redoc package installed', () => {
    for (const tool of ['tsx', 'typescript', 'redoc', 'vitest']) {
      expect(existsSync(join(folder, 'node_modules', tool)), tool).toBe(false);
    }
    expect(existsSync(join(folder, 'dist/src/docs/redoc.standalone.js'))).toBe(true);
  });

  it('runs the compiled JavaScript, and says so', async () => {
    const version = await run(join(folder, 'bin/hadir'), ['--version'], tmpdir());
    expect(version).toMatch(
      /^hadir \d+\.\d+\.\d+ \(Node\.js v24\.\d+\.\d+, compiled JavaScript from dist\/\)\n$/,
    );
  });

  it('serves the data API and the reference page, and stops with status 0', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    const store = await openTestStore(databaseUrl);
    await seedCampaign(store, systemClock, { id: 'c' });
    const { key } = await createTestKey(store, systemClock, [{ campaignId: 'c', fields: [] }]);
    await store.close();

    const child = spawnOwned(join(folder, 'bin/hadir'), ['serve', '--port', '0', '--json'], {
      cwd: folder,
      env: { ...process.env, ...TEST_SECRET_ENV, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          const match = /"url":"(http:\/\/[^"]+)"/.exec(chunk.toString());
          if (match) resolve(match[1] as string);
        });
        child.once('exit', () => reject(new Error('the installed server exited')));
      });
      const campaigns = await fetch(`${url}/developer/v1/campaigns`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(campaigns.status).toBe(200);
      expect(((await campaigns.json()) as { data: Array<{ id: string }> }).data[0]?.id).toBe('c');
      expect((await fetch(`${url}/developer/v1/skill.zip`)).status).toBe(200);
      // The hosted MCP endpoint, whose tools come from the compiled @hadir/mcp beside the server.
      const tools = await postMcp(
        `${url}/developer/mcp`,
        { method: 'tools/list' },
        { authorization: `Bearer ${key}` },
      );
      expect(tools.status).toBe(200);
      expect(((await tools.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(
        6,
      );
      const page = await fetch(`${url}/developer/v1/docs`, { headers: { accept: 'text/html' } });
      expect(await page.text()).toContain('redoc.standalone.js');
      const redoc = await fetch(`${url}/developer/v1/docs/redoc.standalone.js`);
      expect(redoc.status).toBe(200);
      const bundle = await redoc.text();
      expect(bundle).toContain('Redoc');
      expect(bundle).not.toContain('cdn.redoc.ly/redoc/logo-mini.svg');
      // It started over with its memory settings, on the same process id (see process-memory.ts).
      const { semiSpaceMb, mallocArenas } = settingsFor('serve', process.env) as ProcessSettings;
      const commandLine = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      expect(commandLine).toContain(`--max-semi-space-size=${semiSpaceMb}`);
      expect(commandLine.some((arg) => arg.endsWith('dist/src/cli/main.js'))).toBe(true);
      const environment = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
      expect(environment).toContain(`MALLOC_ARENA_MAX=${mallocArenas}`);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exitOf(child)).toBe(0);
  });

  it('runs the sources again once one is newer than the build, and says what to do without tsx', async () => {
    const cli = join(folder, 'src/cli/main.ts');
    const later = new Date(Date.now() + 60_000);
    utimesSync(cli, later, later);
    const failed = await run(join(folder, 'bin/hadir'), ['--version'], tmpdir()).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failed).toContain('run npm run build');
  });
});
