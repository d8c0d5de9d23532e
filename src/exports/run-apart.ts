import { fork } from 'node:child_process';
import type { Speedup } from '../speedups.ts';
import { moduleBeside } from '../threads.ts';
import { KeyNotInForce, RunFailed, type RunResult, RunTakenOver } from './export-run.ts';
import type { Deliver } from './export-worker.ts';
import type { ExportRecord, RunClaim } from './exports.repository.ts';

/** What the run's process is told: its store and settings, and the run it carries out. */
export interface ApartJob {
  databaseUrl: string;
  keySealKey: Uint8Array;
  allowPrivateNetworks: boolean;
  speedupsOff: Speedup[];
  recordsDisclosures: boolean;
  leaseMs: number;
  delivery: ExportRecord;
  claim: RunClaim;
}

/** What it answers, once: the run's result, or how it failed in the words a failure is told. */
export type ApartOutcome =
  | { kind: 'delivered'; result: RunResult }
  | { kind: 'failed'; cause: 'key' | 'taken-over' | 'other'; words: string };

/**
 * A young generation of a few megabytes: V8's default grows it far past what a run has live at
 * once (a read of rows and a row group), and the process's memory with it (docs/performance.md).
 */
const HEAP = ['--max-semi-space-size=4'];

export type ApartSettings = Omit<ApartJob, 'delivery' | 'claim'>;

/**
 * Carries out each run in a process of its own, started for the run and gone after it: a run
 * reads a whole campaign and writes it as files, and the memory that takes (the writers, their
 * buffers, the rows in flight) is then never the serving process's. The run's process opens its
 * own connection to the store, renews the claim's lease itself, writes the disclosure record and
 * the audit line, and answers with the result; the serving process records the outcome.
 * A serving process that stops waits for the run, as it would for its own; one that dies takes
 * the run with it (the channel closes, the run's process exits), and its lease lapses for another
 * node to run the slot again.
 */
export function runApart(settings: ApartSettings): Deliver {
  return (delivery: ExportRecord, claim: RunClaim): Promise<RunResult> =>
    new Promise((resolve, reject) => {
      const { entry, source } = moduleBeside(import.meta.url, 'run-apart-process');
      const child = fork(entry, [], {
        serialization: 'advanced',
        // From the TypeScript sources (development, the tests), through tsx as the caller is.
        execArgv: [
          ...HEAP,
          ...(source ? ['--conditions=hadir-source', '--import', import.meta.resolve('tsx')] : []),
        ],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      let outcome: ApartOutcome | undefined;
      child.once('message', (message) => {
        outcome = message as ApartOutcome;
      });
      child.once('error', (error) => {
        reject(error);
      });
      child.once('exit', (code, signal) => {
        if (outcome?.kind === 'delivered') resolve(outcome.result);
        else if (outcome?.cause === 'key') reject(new KeyNotInForce(outcome.words));
        else if (outcome?.cause === 'taken-over') reject(new RunTakenOver(outcome.words));
        else if (outcome) reject(new RunFailed(outcome.words));
        else
          reject(
            new RunFailed(`the run's process ended (${signal ?? `exit ${code}`}) without a word`),
          );
      });
      const job: ApartJob = { ...settings, delivery, claim };
      child.send(job);
    });
}
