// npm's prepare step: builds the workspace packages (the SDK and what uses it) and the server
// when the development dependencies are installed, so that ./bin/hadir runs compiled JavaScript
// from the first command on (it falls back to the sources once one is newer than the build). A
// production install (`npm ci --omit=dev --workspaces=false`) has no compiler, and the server
// needs none of the packages.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('typescript');
} catch {
  process.exit(0);
}
execFileSync('npm', ['run', 'build', '--workspaces', '--if-present'], { stdio: 'inherit' });
execFileSync(process.execPath, [new URL('pack-packages.mjs', import.meta.url).pathname], {
  stdio: 'inherit',
});
execFileSync('npm', ['run', '--silent', 'build:server'], { stdio: 'inherit' });
