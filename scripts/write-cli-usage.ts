/**
 * Writes src/cli/usage.generated.ts, the usage line of every command in help's order, which
 * `hadir --help` prints without loading a command's modules; a test fails when it is stale.
 */
import { writeFileSync } from 'node:fs';
import { allCommands, usageModuleText } from '../src/cli/cli.ts';

const file = new URL('../src/cli/usage.generated.ts', import.meta.url);
writeFileSync(file, usageModuleText(Object.values(await allCommands()).map((c) => c.usage)));
