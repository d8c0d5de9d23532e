import { DomainError } from '../errors.ts';
import { MINUTE_MS, SECOND_MS } from '../time-units.ts';
import { inSpan } from '../tracing/tracing.ts';
import {
  deliverRun,
  failureWords,
  KeyNotInForce,
  type RunDeps,
  type RunResult,
  RunTakenOver,
} from './export-run.ts';
import { slotAt, slotOfNow } from './export-schedule.ts';
import {
  claimRun,
  type ExportRecord,
  failRun,
  findExports,
  finishRun,
  type RunClaim,
  renewLease,
  runsOfSlots,
} from './exports.repository.ts';
import { ownExport } from './exports.service.ts';

/** How long a claim holds a run without word from its node; renewed while the run goes on. */
export const RUN_LEASE_MS = 2 * MINUTE_MS;
/** How often a serving process looks for runs due: a run starts at most this late. */
export const CHECK_EVERY_MS = 30 * SECOND_MS;
/** Waits before each retry of a failed run; after the last, the slot is given up. */
export const RETRY_AFTER_MS = [MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, 60 * MINUTE_MS];

/** How a claimed run is carried out: here (deliverRun), or in a process of its own (runApart). */
export type Deliver = (
  delivery: ExportRecord,
  claim: RunClaim,
  stillHeld: () => Promise<boolean>,
) => Promise<RunResult>;

export interface ExportWorkerOptions extends RunDeps {
  /** deliverRun in this process unless given. */
  deliver?: Deliver;
  leaseMs?: number;
  checkEveryMs?: number;
  onRun?: (exportId: string, outcome: RunResult | { error: string }) => void;
  onError?: (error: unknown) => void;
}

/**
 * Runs the deliveries that are due, on every serving process: a slot's run is claimed in the store
 * (see claimRun), so across nodes each slot runs once; a node that dies mid-run loses its lease,
 * and another runs the slot again from the start. One run at a time per process: a run reads whole
 * campaigns.
 */
export class ExportWorker {
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: ExportWorkerOptions) {
    this.leaseMs = options.leaseMs ?? RUN_LEASE_MS;
  }

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.runDue()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          if (!this.stopped)
            this.timer = setTimeout(tick, this.options.checkEveryMs ?? CHECK_EVERY_MS);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Runs every delivery whose slot is due (new, retry due, or its node gone); how many ran. */
  async runDue(): Promise<number> {
    const { store, clock } = this.options;
    const now = clock.now();
    const slots = (await findExports(store.db))
      .map((delivery) => ({ delivery, runAt: slotAt(delivery.schedule, now) }))
      // No run for a slot before the delivery was set up.
      .filter(({ delivery, runAt }) => runAt >= delivery.createdAt);
    const existing = await runsOfSlots(
      store.db,
      slots.map(({ delivery, runAt }) => ({ exportId: delivery.id, runAt })),
    );
    let ran = 0;
    for (const { delivery, runAt } of slots) {
      if (this.stopped) break;
      const run = existing.find((r) => r.exportId === delivery.id && r.runAt === runAt);
      const due =
        !run ||
        (run.state === 'failed' && run.nextAttemptAt !== null && run.nextAttemptAt <= now) ||
        (run.state === 'running' && run.leaseUntil < now);
      if (!due) continue;
      const claim = await claimRun(
        store.db,
        { exportId: delivery.id, runAt },
        clock.now(),
        this.leaseMs,
      );
      if (!claim) continue;
      ran += 1;
      await this.run(delivery, claim).catch(() => {});
    }
    return ran;
  }

  /** `hadir exports run ID`: a run now (its slot this second), resolved once its manifest is written. */
  async runNow(exportId: string): Promise<RunResult> {
    const { store, clock } = this.options;
    const delivery = await ownExport(
      { ...this.options, actor: 'operator', allowPrivateNetworks: true },
      exportId,
    );
    const claim = await claimRun(
      store.db,
      { exportId, runAt: slotOfNow(clock.now()) },
      clock.now(),
      this.leaseMs,
    );
    if (!claim)
      throw new DomainError('conflict', `a run of ${exportId} started this second already`);
    return this.run(delivery, claim);
  }

  /** One claimed run, its lease renewed while it goes on, ended as delivered or failed. */
  private async run(delivery: ExportRecord, claim: RunClaim): Promise<RunResult> {
    const { store, clock } = this.options;
    let held = true;
    const renew = async () => {
      if (held) held = await renewLease(store.db, claim, clock.now() + this.leaseMs);
      return held;
    };
    const heartbeat = setInterval(() => {
      renew().catch(() => {});
    }, this.leaseMs / 4);
    try {
      const result = await inSpan(
        'export run',
        { 'hadir.export.formats': delivery.formats, 'hadir.attempt': claim.attempt },
        async (span) => {
          const delivered = await (this.options.deliver
            ? this.options.deliver(delivery, claim, renew)
            : deliverRun(this.options, delivery, claim, renew));
          span.setAttributes({
            'hadir.export.files': delivered.manifest.files.length,
            'hadir.export.rows': delivered.rows,
            'hadir.export.bytes': delivered.bytes,
          });
          return delivered;
        },
      );
      await finishRun(store.db, claim, {
        at: clock.now(),
        files: result.manifest.files.length,
        rows: result.rows,
        bytes: result.bytes,
      });
      this.options.onRun?.(delivery.id, result);
      return result;
    } catch (error) {
      if (!(error instanceof RunTakenOver)) {
        const retry = RETRY_AFTER_MS[claim.attempt - 1];
        // A chain with no key in force is not tried again: nothing would change.
        const retryAt =
          error instanceof KeyNotInForce || retry === undefined ? null : clock.now() + retry;
        const words = failureWords(error);
        await failRun(store.db, claim, { at: clock.now(), error: words, retryAt });
        this.options.onRun?.(delivery.id, { error: words });
        throw new DomainError('conflict', `the run of ${delivery.id} failed: ${words}`);
      }
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
  }
}
