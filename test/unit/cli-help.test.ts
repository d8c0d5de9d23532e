import { describe, expect, it } from 'vitest';
import { allCommands } from '../../src/cli/cli.ts';
import { USAGES } from '../../src/cli/usage.generated.ts';
import { runHadirInProcess } from '../helpers/cli.ts';

// Every command, each group loaded; each is found by its own first word alone (below).
const COMMANDS = await allCommands();

// --help never opens the database: a path that cannot exist proves it.
const NO_DATABASE = { databaseUrl: 'sqlite:/nonexistent/folder/hadir.sqlite' };

describe('the CLI explains itself', () => {
  it.each(Object.keys(COMMANDS))(
    'hadir %s --help prints its usage, what it does and an example',
    async (name) => {
      const command = COMMANDS[name];
      const result = await runHadirInProcess([...name.split(' '), '--help'], NO_DATABASE);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(`usage: hadir ${command?.usage}`);
      expect(result.stdout).toContain(command?.summary);
      expect(result.stdout).toContain(`example:\n  hadir ${command?.example}`);
      // The example names the command it belongs to.
      expect(command?.example.startsWith(name)).toBe(true);
    },
  );

  it.each(['keys', 'accounts'])(
    'hadir %s --help lists the group, and %s alone asks which one',
    async (group) => {
      const help = await runHadirInProcess([group, '--help'], NO_DATABASE);
      expect(help.status).toBe(0);
      const members = Object.keys(COMMANDS).filter((name) => name.startsWith(`${group} `));
      for (const name of members) expect(help.stdout).toContain(`hadir ${COMMANDS[name]?.usage}`);
      const bare = await runHadirInProcess([group], NO_DATABASE);
      expect(bare.status).toBe(2);
      expect(bare.stderr).toContain(`hadir ${group}: which one?`);
    },
  );

  it('prints the whole help from usage lines kept current (npm run cli-usage)', async () => {
    expect(USAGES).toEqual(Object.values(COMMANDS).map((command) => command.usage));
    const help = await runHadirInProcess(['--help'], NO_DATABASE);
    for (const command of Object.values(COMMANDS)) {
      expect(help.stdout).toContain(`  hadir ${command.usage}\n`);
    }
  });

  it('names an unknown option or a missing value plainly, and points to --help', async () => {
    const unknown = await runHadirInProcess(['keys', 'create', '--bogus'], NO_DATABASE);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('hadir keys create: unknown option --bogus');
    expect(unknown.stderr).toContain('hadir keys create --help');
    const missing = await runHadirInProcess(['keys', 'create', '--account'], NO_DATABASE);
    expect(missing.stderr).toContain('option --account needs a value');
  });
});
