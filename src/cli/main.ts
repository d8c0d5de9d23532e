import { startWithSettings } from '../process-memory.ts';
import { runCli } from './cli.ts';

const args = process.argv.slice(2);
// A reader that has had enough (`| head`) closes the pipe: the command has nothing more to say.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
// `serve` and `import` start over at once with their memory settings (see process-memory.ts).
startWithSettings(args[0]);

const status = await runCli(args, {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: () => process.stdin,
  stderrIsTerminal: process.stderr.isTTY === true,
});
// serve and demo keep running on their open server; every other command ends here.
if (status !== 0) process.exit(status);
