import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitOf, runHadirInProcess, startHadir } from '../helpers/cli.ts';
import { freePort } from '../helpers/postgres-cluster.ts';

const folder = () => mkdtempSync(join(tmpdir(), 'hadir-mistakes-'));

describe('an operator’s mistake is refused, and nothing is made of it', () => {
  it('refuses a SQLite DATABASE_URL in a folder that does not exist, and makes no folder', async () => {
    const missing = join(folder(), 'typo', 'hadir.sqlite');
    for (const args of [
      ['keys', 'list'],
      ['import', '-'],
      ['accounts', 'create', '--email', 'a@b.id'],
    ]) {
      const result = await runHadirInProcess(args, {
        databaseUrl: `sqlite:${missing}`,
        input: '{"campaigns":[]}',
      });
      expect(result.status, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(
        `DATABASE_URL names ${missing}, in a folder that does not exist`,
      );
    }
    expect(existsSync(join(missing, '..'))).toBe(false);
  });

  it('refuses a database file that does not exist to every command but the ones that start one', async () => {
    const path = join(folder(), 'hadir.sqlite');
    for (const args of [
      ['keys', 'list'],
      ['accounts', 'list'],
      ['respondents', 'find', '--value', 'sari@example.com'],
      ['webhooks', 'list'],
      ['retention', 'run'],
    ]) {
      const result = await runHadirInProcess(args, { databaseUrl: `sqlite:${path}` });
      expect(result.status, args.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`DATABASE_URL names ${path}, which does not exist`);
      expect(existsSync(path)).toBe(false);
    }
    const imported = await runHadirInProcess(['import', '-'], {
      databaseUrl: `sqlite:${path}`,
      input: '{"campaigns":[]}',
    });
    expect(imported.status).toBe(0);
    expect(existsSync(path)).toBe(true);
    expect(
      (await runHadirInProcess(['keys', 'list'], { databaseUrl: `sqlite:${path}` })).status,
    ).toBe(0);
  });

  it('names the PostgreSQL host and port it cannot reach, and DATABASE_URL', async () => {
    const port = await freePort();
    const result = await runHadirInProcess(['keys', 'list'], {
      databaseUrl: `postgres://hadir:secret-password@127.0.0.1:${port}/hadir`,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `hadir keys list: cannot use the database DATABASE_URL names (PostgreSQL 127.0.0.1:${port}/hadir): nothing answers there (connect ECONNREFUSED 127.0.0.1:${port})\n`,
    );
  });

  it('serves a new, empty database, and says at start that it holds nothing to serve', async () => {
    const databaseUrl = `sqlite:${join(folder(), 'hadir.sqlite')}`;
    const server = await startHadir(['serve', '--port', '0'], {
      databaseUrl,
      ready: /holds no campaign yet/,
    });
    try {
      expect(server.output()).toContain('import one with ./bin/hadir import FILE');
    } finally {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
    }
  });
});
