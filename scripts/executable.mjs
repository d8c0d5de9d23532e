// Marks a package's compiled command as executable (tsc writes files without the x bit), so the
// command runs from a workspace checkout as it does from an installed package.
// Usage: node ../../scripts/executable.mjs dist/cli.js
import { chmodSync } from 'node:fs';

for (const path of process.argv.slice(2)) chmodSync(path, 0o755);
