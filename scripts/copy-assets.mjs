// Copies the files the compiled server reads at run time, which tsc does not emit, into a build.
// Usage: node scripts/copy-assets.mjs <outDir>
import { cpSync } from 'node:fs';
import { join } from 'node:path';

const ASSETS = ['src/docs/skill/sync-example.mjs', 'src/portal-pages/assets'];

const outDir = process.argv[2];
if (!outDir) {
  process.stderr.write('usage: node scripts/copy-assets.mjs <outDir>\n');
  process.exit(2);
}
const root = new URL('..', import.meta.url).pathname;
for (const path of ASSETS) cpSync(join(root, path), join(root, outDir, path), { recursive: true });
