import { setPriority } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { createCampaignService } from '../campaigns/campaigns.service.ts';
import { createRespondentPages } from '../campaigns/pages/respondent-pages.ts';
import { systemClock } from '../clock.ts';
import { openStore } from '../db/connect.ts';
import { DisclosureLog, UNRECORDED } from '../disclosures/disclosure-log.ts';
import { ResponseCache } from '../http/response-cache.ts';
import { KeyUsage } from '../keys/key-usage.ts';
import { systemResolver } from '../outbound/resolver.ts';
import { Speedups } from '../speedups.ts';
import { deliverRun, failureWords, KeyNotInForce, RunTakenOver } from './export-run.ts';
import { renewLease } from './exports.repository.ts';
import type { ApartJob, ApartOutcome } from './run-apart.ts';

// The process of one run (see runApart): told its job once, it answers once and exits.

// The serving process keeps the processor first: a run can wait, a partner's page should not.
try {
  setPriority(10);
} catch {
  // Not allowed here: the run goes at the serving process's priority.
}
// The serving process gone (killed) before the answer: so is its run, whose lease lapses for
// another node.
const orphaned = () => process.exit(1);
process.once('disconnect', orphaned);
process.once('message', (job: ApartJob) => {
  void run(job)
    .catch(
      (error: unknown): ApartOutcome => ({
        kind: 'failed',
        cause: 'other',
        words: failureWords(error),
      }),
    )
    .then((outcome) =>
      process.send?.(outcome, () => {
        // Answered: the channel is closed from this side, and the process ends as its work has.
        process.off('disconnect', orphaned);
        process.disconnect();
      }),
    );
});

async function run(job: ApartJob): Promise<ApartOutcome> {
  const logger = pino({ level: 'warn' }, pino.destination(2)) as unknown as FastifyBaseLogger;
  const store = openStore(job.databaseUrl, { poolSize: 2, ifMissing: 'refuse' });
  const keyUsage = new KeyUsage(store.db, logger);
  const disclosures = job.recordsDisclosures ? new DisclosureLog(store) : UNRECORDED;
  // Its own process: the file is written on its one thread, which serves nobody else.
  const speedups = new Speedups([...job.speedupsOff, 'file-thread']);
  try {
    // The campaigns' reads alone, with no cache: a run reads each page once, and hands out no
    // cursor (so any key signs them).
    const campaigns = createCampaignService(store, {
      cache: new ResponseCache(0, { speedups }),
      pages: createRespondentPages(store, { cursorKey: Buffer.alloc(32), speedups }),
      speedups,
    });
    const result = await deliverRun(
      {
        store,
        clock: systemClock,
        keySealKey: Buffer.from(job.keySealKey),
        campaigns,
        keyUsage,
        disclosures,
        resolve: systemResolver,
        allowPrivateNetworks: job.allowPrivateNetworks,
        speedups,
      },
      job.delivery,
      job.claim,
      () => renewLease(store.db, job.claim, systemClock.now() + job.leaseMs),
    );
    return { kind: 'delivered', result };
  } catch (error) {
    const cause =
      error instanceof KeyNotInForce
        ? 'key'
        : error instanceof RunTakenOver
          ? 'taken-over'
          : 'other';
    return { kind: 'failed', cause, words: failureWords(error) };
  } finally {
    // What the run handed over and counted is written before the process says it is done.
    await disclosures.close();
    await keyUsage.close();
    await store.close();
  }
}
