import { runCli } from './cli.ts';

const status = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: () => process.stdin,
  stderrIsTerminal: process.stderr.isTTY === true,
});
// serve and demo keep running on their open server; every other command ends here.
if (status !== 0) process.exit(status);
