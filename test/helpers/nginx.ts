import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { exitOf } from './cli.ts';
import { spawnOwned } from './owned-processes.ts';
import { freePort } from './postgres-cluster.ts';
import { until } from './until.ts';

/** Debian's nginx; NGINX_PATH names another. */
const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const SITE = new URL('../../deploy/nginx-hadir.conf', import.meta.url);

export interface RunningNginx {
  /** https://127.0.0.1:PORT, with the test certificate. */
  readonly tls: string;
  /** http://127.0.0.1:PORT. */
  readonly plain: string;
  stop(): Promise<void>;
}

/**
 * deploy/nginx-hadir.conf as shipped, with this test's ports and certificate, its listens on
 * 127.0.0.1 only (no test listens elsewhere), and its one upstream server replaced by `hadir`.
 */
function siteFor(
  ports: { tls: number; plain: number; hadir: readonly number[] },
  cert: { certFile: string; keyFile: string },
) {
  const upstreams = ports.hadir.map((port) => `server 127.0.0.1:${port};`).join('\n    ');
  const site = readFileSync(SITE, 'utf8')
    .split('\n')
    .filter((line) => !line.includes('listen [::]'))
    .join('\n')
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${ports.tls} ssl http2;`)
    .replace('listen 80;', `listen 127.0.0.1:${ports.plain};`)
    .replace('server 127.0.0.1:3000;', upstreams)
    .replace(/ssl_certificate .*;/, `ssl_certificate ${cert.certFile};`)
    .replace(/ssl_certificate_key .*;/, `ssl_certificate_key ${cert.keyFile};`);
  // The shipped file must have held each of these: otherwise the test would run another config.
  for (const expected of [`:${ports.tls} ssl`, `:${ports.plain};`, upstreams, cert.keyFile]) {
    expect(site).toContain(expected);
  }
  return site;
}

/** The shipped nginx site in front of Hadir on `hadirPorts`, in `folder`, until stopped. */
export async function startShippedNginx(
  folder: string,
  hadirPorts: readonly number[],
  cert: { certFile: string; keyFile: string },
): Promise<RunningNginx> {
  const ports = { tls: await freePort(), plain: await freePort(), hadir: hadirPorts };
  writeFileSync(join(folder, 'site.conf'), siteFor(ports, cert));
  const temp = (name: string) => `${name}_temp_path ${join(folder, name)};`;
  writeFileSync(
    join(folder, 'nginx.conf'),
    [
      // Run as root (CI), nginx would hand its workers to nobody, who cannot read this folder.
      process.getuid?.() === 0 ? 'user root root;' : '',
      'worker_processes 1;',
      `pid ${join(folder, 'nginx.pid')};`,
      `error_log ${join(folder, 'error.log')} warn;`,
      'events { worker_connections 256; }',
      'http {',
      '  access_log off;',
      `  ${temp('client_body')} ${temp('proxy')} ${temp('fastcgi')} ${temp('uwsgi')} ${temp('scgi')}`,
      `  include ${join(folder, 'site.conf')};`,
      '}',
    ].join('\n'),
  );
  // -e: its log from the first line on, not the system's (which a user other than root cannot open).
  const nginx: ChildProcess = spawnOwned(
    NGINX,
    [
      '-p',
      folder,
      '-e',
      join(folder, 'error.log'),
      '-c',
      join(folder, 'nginx.conf'),
      '-g',
      'daemon off;',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  nginx.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const plain = `http://127.0.0.1:${ports.plain}`;
  await until(async () => {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${errors}`);
    return fetch(`${plain}/livez`).then(
      () => true,
      () => false,
    );
  }, 'nginx to listen');
  return {
    tls: `https://127.0.0.1:${ports.tls}`,
    plain,
    async stop() {
      nginx.kill('SIGQUIT');
      await exitOf(nginx);
    },
  };
}
