import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { type AttemptRecord, settleDelivery } from './deliveries.repository.ts';

type Settlement = Parameters<typeof settleDelivery>;

/**
 * Gathers the outcomes of attempts that end close together and writes them in one transaction:
 * one commit for a burst instead of one per delivery. Each caller's promise resolves once its
 * outcome is stored, so nothing is reported done before it is.
 */
export class SettleBatch {
  private waiting: Array<{
    settlement: Settlement;
    done: () => void;
    failed: (e: unknown) => void;
  }> = [];
  private scheduled = false;

  constructor(
    private readonly db: Kysely<Database>,
    /** How long an outcome may wait for others to join it. */
    private readonly gatherMs = 5,
  ) {}

  settle(delivery: Settlement[1], outcome: Settlement[2], attempt: AttemptRecord): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ settlement: [this.db, delivery, outcome, attempt], done, failed });
      if (this.scheduled) return;
      this.scheduled = true;
      setTimeout(() => this.flush(), this.gatherMs);
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.scheduled = false;
    this.db
      .transaction()
      .execute(async (trx) => {
        for (const { settlement } of batch) {
          const [, delivery, outcome, attempt] = settlement;
          await settleDelivery(trx, delivery, outcome, attempt);
        }
      })
      .then(
        () => {
          for (const one of batch) one.done();
        },
        (error) => {
          for (const one of batch) one.failed(error);
        },
      );
  }
}
