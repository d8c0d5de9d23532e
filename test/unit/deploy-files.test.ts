import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { loadServerSecrets, secretsFromConfig } from '../../src/secrets.ts';
import { checkDevelopmentMail, publicUrlOf, transportOf } from '../../src/start-requirements.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (name: string) => readFileSync(join(ROOT, 'deploy', name), 'utf8');

/**
 * The settings of an env file, as systemd's EnvironmentFile reads them: NAME=value lines, a
 * value in double quotes taken without them.
 */
function environmentOf(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!match) continue;
    const value = match[2] as string;
    env[match[1] as string] = /^".*"$/.test(value) ? value.slice(1, -1) : value;
  }
  return env;
}

describe('deploy/', () => {
  it('hadir.service passes systemd-analyze verify, with the hardening docs/operating/production.md describes', async () => {
    const unit = read('hadir.service');
    for (const line of [
      'User=hadir',
      'ExecStart=/opt/hadir/bin/hadir serve',
      'EnvironmentFile=/etc/hadir/hadir.env',
      'ProtectSystem=strict',
      'ReadWritePaths=/var/lib/hadir',
      'StateDirectory=hadir',
      'NoNewPrivileges=true',
      'Restart=on-failure',
      'KillSignal=SIGTERM',
    ]) {
      expect(unit.split('\n')).toContain(line);
    }
    // This checkout in place of /opt/hadir, so that the command it names exists.
    const folder = mkdtempSync(join(tmpdir(), 'hadir-unit-'));
    const file = join(folder, 'hadir.service');
    writeFileSync(file, unit.replaceAll('/opt/hadir', ROOT.replace(/\/$/, '')));
    const { stdout, stderr } = await promisify(execFile)('systemd-analyze', ['verify', file]);
    // It exits 0 even on a line it ignores, so any word from it is a fault.
    expect(`${stdout}${stderr}`.trim()).toBe('');
  });

  it('hadir-relay.service passes systemd-analyze verify, naming the relay by its absolute path', async () => {
    const unit = read('hadir-relay.service');
    for (const line of [
      'User=hadir-relay',
      'WorkingDirectory=/opt/hadir-relay',
      'ExecStart=/opt/hadir-relay/node_modules/.bin/hadir-relay',
      'EnvironmentFile=/etc/hadir-relay/relay.env',
      'NoNewPrivileges=true',
      'KillSignal=SIGTERM',
    ]) {
      expect(unit.split('\n')).toContain(line);
    }
    // This checkout, where npm linked the relay's command, in place of the install folder.
    const folder = mkdtempSync(join(tmpdir(), 'hadir-unit-'));
    const file = join(folder, 'hadir-relay.service');
    writeFileSync(file, unit.replaceAll('/opt/hadir-relay', ROOT.replace(/\/$/, '')));
    const { stdout, stderr } = await promisify(execFile)('systemd-analyze', ['verify', file]);
    expect(`${stdout}${stderr}`.trim()).toBe('');
  });

  it('hadir.env.example, with its secrets filled in, is a production configuration that starts', () => {
    const env = {
      ...environmentOf(read('hadir.env.example')),
      CODE_HMAC_SECRET: '1'.repeat(64),
      KEY_SEAL_SECRET: '2'.repeat(64),
    };
    const config = loadConfig(env);
    expect(config.production).toBe(true);
    expect(transportOf(config)).toEqual({ kind: 'behind_proxy' });
    expect(publicUrlOf(config)).toBe('https://hadir.example.com');
    expect(config.databaseUrl).toBe('sqlite:/var/lib/hadir/hadir.sqlite');
    expect(() => checkDevelopmentMail(config)).not.toThrow();
    expect(() => loadServerSecrets(secretsFromConfig(config), true)).not.toThrow();
  });

  it.each(['sh', 'dash', 'bash'])(
    'hadir.env.example loads in %s as docs/operating/production.md loads it, each value as systemd reads it',
    (shell) => {
      const file = join(ROOT, 'deploy', 'hadir.env.example');
      const expected = environmentOf(read('hadir.env.example'));
      const names = Object.keys(expected);
      // No standard input: bash reads ~/.bashrc when its input is a socket, as Node's pipes are.
      const { stdout, stderr } = spawnSync(
        shell,
        [
          '-c',
          `set -a; . "$0"; for name in ${names.join(' ')}; do printf '%s=%s\\n' "$name" "$(printenv "$name")"; done`,
          file,
        ],
        {
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      expect(stderr).toBe('');
      expect(environmentOf(stdout)).toEqual(expected);
      expect(expected.MAIL_FROM).toBe('Hadir <no-reply@hadir.example.com>');
    },
  );

  it('the nginx site proxies to the address the env example listens on', () => {
    const env = environmentOf(read('hadir.env.example'));
    expect(read('nginx-hadir.conf')).toContain(`server ${env.HOST}:${env.PORT};`);
    expect(env.TRUST_PROXY).toBe(env.HOST);
  });
});
