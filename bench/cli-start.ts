import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './load.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const RUNS = 7;

export interface CliStartRow {
  command: string;
  /** Wall time of each run, from the shell's start of ./bin/hadir to its exit (ms). */
  runsMs: number[];
  medianMs: number;
}

/**
 * How long `./bin/hadir --help`, `keys list` and `status` take as an operator types them, on the
 * build (as `npm ci` leaves it), each run after a first that fills V8's compile cache.
 */
export function measureCliStart(log: (line: string) => void): CliStartRow[] {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-cli-'));
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(folder, 'hadir.sqlite')}` };
  const hadir = (args: string[]) =>
    execFileSync(join(ROOT, 'bin', 'hadir'), args, { env, stdio: 'ignore' });
  try {
    // A database to read: made by the first command that writes one.
    hadir(['accounts', 'create', '--email', 'bench@hadir.test']);
    return [['--help'], ['keys', 'list'], ['status']].map((args) => {
      hadir(args);
      const runsMs = Array.from({ length: RUNS }, () => {
        const started = performance.now();
        hadir(args);
        return Math.round(performance.now() - started);
      });
      const row = { command: args.join(' '), runsMs, medianMs: median(runsMs) };
      log(`  hadir ${row.command.padEnd(9)} median ${row.medianMs} ms (${runsMs.join(', ')})`);
      return row;
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
