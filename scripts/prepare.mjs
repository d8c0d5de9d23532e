// npm's prepare step: builds the workspace packages (the client and hadir-sync) when the
// development dependencies are installed. A production install (`npm ci --omit=dev`) has no
// compiler and keeps the packages as the build left them.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('typescript');
} catch {
  process.exit(0);
}
execFileSync('npm', ['run', 'build', '--workspaces', '--if-present'], { stdio: 'inherit' });
