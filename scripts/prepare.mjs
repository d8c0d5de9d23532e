// npm's prepare step: builds the workspace packages (the SDK and what uses it) when the
// development dependencies are installed. A production install (`npm ci --omit=dev
// --workspaces=false`) has no compiler, and the server needs none of the packages.
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
