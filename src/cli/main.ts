import { runCli } from './cli.ts';

const status = await runCli(process.argv.slice(2));
// serve and demo keep running on their open server; every other command ends here.
if (status !== 0 || !['serve', 'demo'].includes(process.argv[2] ?? '')) process.exitCode = status;
