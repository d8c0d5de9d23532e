// Packs the client packages as installable tarballs into dist/packages/, which the server offers
// for download (see src/downloads). Run after the packages are built.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGES = ['client', 'sync', 'mcp', 'relay'];

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist/packages');
mkdirSync(out, { recursive: true });
for (const old of readdirSync(out)) if (old.endsWith('.tgz')) rmSync(join(out, old));
execFileSync(
  'npm',
  [
    'pack',
    '--silent',
    '--pack-destination',
    out,
    ...PACKAGES.map((name) => `--workspace=packages/${name}`),
  ],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
);
