// Completes a build of the server after tsc: copies the files the compiled server reads at run
// time, which tsc does not emit; writes Redoc's bundle as an asset, so a production install needs
// no redoc package; and stamps the build, which ./bin/hadir runs while no source is newer.
// Usage: node scripts/finish-build.mjs <outDir>
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ASSETS = ['src/docs/skill/sync-example.mjs', 'src/portal-pages/assets'];

const outDir = process.argv[2];
if (!outDir) {
  process.stderr.write('usage: node scripts/finish-build.mjs <outDir>\n');
  process.exit(2);
}
const root = new URL('..', import.meta.url).pathname;
const out = join(root, outDir);
for (const path of ASSETS) cpSync(join(root, path), join(out, path), { recursive: true });

const { patchRedoc } = await import(pathToFileURL(join(out, 'src/docs/docs-page.js')).href);
const redoc = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
writeFileSync(join(out, 'src/docs/redoc.standalone.js'), patchRedoc(readFileSync(redoc, 'utf8')));

// The server serves hadir-mcp's tools (the hosted MCP endpoint): the compiled workspace packages
// it imports go beside it, where Node.js finds them from dist/, since a production install
// (npm ci --workspaces=false) links no workspace. Their own dependencies are the server's too.
for (const name of ['client', 'mcp']) {
  const from = join(root, 'packages', name);
  const to = join(out, 'node_modules', '@hadir', name);
  cpSync(join(from, 'package.json'), join(to, 'package.json'));
  cpSync(join(from, 'dist'), join(to, 'dist'), { recursive: true });
}

writeFileSync(join(out, '.built'), `${new Date().toISOString()}\n`);
