import type { Store } from '../db/store.ts';
import { type Settlement, settleDeliveries } from './deliveries.repository.ts';

/** At most this many outcomes in one statement. */
const MAX_BATCH = 500;

/**
 * Gathers the outcomes of attempts that end close together and writes them in one statement:
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
    private readonly store: Store,
    /** How long an outcome may wait for others to join it. */
    private readonly gatherMs = 25,
  ) {}

  settle(
    delivery: Settlement['delivery'],
    outcome: Settlement['outcome'],
    attempt: Settlement['attempt'],
  ): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ settlement: { delivery, outcome, attempt }, done, failed });
      if (this.scheduled) return;
      this.scheduled = true;
      setTimeout(() => this.flush(), this.gatherMs);
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      settleDeliveries(
        this.store,
        batch.map((one) => one.settlement),
      ).then(
        () => {
          for (const one of batch) one.done();
        },
        (error) => {
          for (const one of batch) one.failed(error);
        },
      );
    }
  }
}
