import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import type { DisclosureRecorder } from '../disclosures/disclosure-log.ts';
import { idListOf, NO_IDS } from '../disclosures/id-list.ts';
import { eventBody } from '../journal/events.ts';
import { findHolderOfKey } from '../keys/keys.repository.ts';
import type { Mailer, MailMessage } from '../mail/mailer.ts';
import { inSpan } from '../tracing/tracing.ts';
import {
  type ChainInForce,
  claimForSending,
  type DeliveryToSend,
  findDue,
  findNextDue,
  noteEndpointFailure,
  noteEndpointSuccess,
  readableNow,
} from './deliveries.repository.ts';
import { disableEndpoint } from './endpoints.repository.ts';
import { DISABLE_AFTER_FAILING_MS, nextAttemptAt } from './retry-schedule.ts';
import { SettleBatch } from './settle-batch.ts';
import { openSecret, signatureHeader } from './signing.ts';
import { postNotification, type SenderOptions, type SendOutcome } from './webhook-sender.ts';

/** Why the worker turns an endpoint off by itself. */
export type DisableReason = 'gone' | 'failing';

/** The mail that tells a holder their endpoint was turned off (the portal's message files). */
export type DisabledMail = (url: string, reason: DisableReason) => Omit<MailMessage, 'to'>;

export interface DeliveryWorkerOptions {
  store: Store;
  clock: Clock;
  /** The AES key endpoint secrets are sealed with (webhookSealKey). */
  sealKey: Buffer;
  sender: SenderOptions;
  /** Where a notification that names respondents is recorded before it is sent. */
  disclosures: DisclosureRecorder;
  /** Requests in flight at once, overall and to one endpoint. */
  concurrency?: number;
  perEndpoint?: number;
  /** How often the outbox is looked at when there was nothing to send. */
  pollIntervalMs?: number;
  /** How long a claimed attempt is this worker's alone (more than the sender's timeout). */
  leaseMs?: number;
  random?: () => number;
  /** Tells an endpoint's holder it was disabled, in the words of the message files. */
  disabledNotice?: { mailer: Mailer; compose: DisabledMail };
  onOutcome?: (outcome: DeliveryOutcome) => void;
  onError?: (error: unknown) => void;
  /** Tells the operator of an endpoint whose secret cannot be opened (once per endpoint). */
  onWarning?: (message: string, context: { endpointId: string }) => void;
}

/** Why a delivery failed when its endpoint's secret cannot be opened with this server's key. */
export const SECRET_UNREADABLE =
  "the endpoint's signing secret cannot be opened with this server's KEY_SEAL_SECRET (changed, or the database restored on another server?): rotate the endpoint's secret";

export type DeliveryOutcome = 'delivered' | 'failed' | 'retrying' | 'skipped' | 'refused';

export const DEFAULT_CONCURRENCY = 128;
export const DEFAULT_PER_ENDPOINT = 4;
/** How long freed slots gather before they are filled again. */
const REFILL_MS = 3;
/** How often a steadily succeeding endpoint's last success is written. */
const SUCCESS_NOTE_MS = 10_000;

/**
 * Sends the outbox's deliveries: claims the due ones (several workers share them, see claim),
 * checks at the moment of sending that the endpoint's key may still read the campaign, signs,
 * posts, and records the outcome. At most `concurrency` requests are in flight, and at most
 * `perEndpoint` to one endpoint, so a slow or dead receiver holds only its own share.
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<string, number>();
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = 0;
  private filling: Promise<void> | undefined;
  private stopped = true;
  private readonly sends = new Set<Promise<void>>();
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  /** When this worker last recorded each endpoint's success (see noteSuccess). */
  private readonly successNoted = new Map<string, number>();
  /** Endpoints whose unreadable secret the operator was told of. */
  private readonly toldUnreadable = new Set<string>();
  private readonly settlements: SettleBatch;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.perEndpoint = options.perEndpoint ?? DEFAULT_PER_ENDPOINT;
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.settlements = new SettleBatch(options.store);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks at the outbox now: something was committed to it (see wake-ups.ts). */
  wake(): void {
    this.schedule(0);
  }

  /** Stops claiming, and waits for the requests in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.filling;
    await Promise.all(this.sends);
  }

  /** Claims what is due now and sends it; resolves when those sends are done (tests drive this). */
  async runOnce(): Promise<number> {
    const started = await this.fill();
    await Promise.all(this.sends);
    return started;
  }

  /** Fills no later than `delayMs` from now (an earlier fill already set stands). */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const due = performance.now() + delayMs;
    if (this.timer !== undefined && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fill()
        .then(async (started) => {
          if (started > 0) return this.schedule(this.pollIntervalMs / 5);
          this.schedule(this.pollIntervalMs);
          // A notification waiting for its window (see recordChange) goes when it comes due, not
          // at the next look after it.
          const { store, clock } = this.options;
          const next = await findNextDue(store, clock.now());
          if (next !== undefined) this.schedule(Math.max(0, next - clock.now()));
        })
        .catch((error) => {
          this.options.onError?.(error);
          this.schedule(this.pollIntervalMs * 4);
        });
    }, delayMs);
    this.timer.unref();
  }

  /** One claim at a time per worker; returns how many sends it started. */
  private fill(): Promise<number> {
    const run = (this.filling ?? Promise.resolve()).then(() => this.claimAndSend());
    this.filling = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async claimAndSend(): Promise<number> {
    const room = this.concurrency - this.running;
    if (room <= 0) return 0;
    const { store, clock } = this.options;
    const now = clock.now();
    const busy = [...this.inFlight].filter(([, n]) => n >= this.perEndpoint).map(([id]) => id);
    // More than there is room for: some may belong to an endpoint already at its limit.
    const due = await findDue(store, now, room * this.perEndpoint, busy);
    const fitting: string[] = [];
    const chains = new Set<string>();
    const counted = new Map(this.inFlight);
    for (const row of due) {
      if (fitting.length === room) break;
      const n = counted.get(row.endpoint_id) ?? 0;
      if (n >= this.perEndpoint) continue;
      counted.set(row.endpoint_id, n + 1);
      fitting.push(row.id);
      chains.add(row.lineage_id);
    }
    if (fitting.length === 0) return 0;
    // What the chains may read is asked beside the claim, not after it: one wait instead of two.
    const [deliveries, readable] = await Promise.all([
      claimForSending(store, fitting, now, this.leaseMs),
      readableNow(store, [...chains], now),
    ]);
    if (deliveries.length === 0) return 0;
    // Opened once per endpoint of this claim, and forgotten with it.
    const opened = new Map<string, readonly string[]>();
    const secretsOf = (delivery: DeliveryToSend) => {
      let secrets = opened.get(delivery.endpointId);
      if (!secrets) {
        secrets = this.openSecrets(delivery);
        opened.set(delivery.endpointId, secrets);
      }
      return secrets;
    };
    for (const delivery of deliveries) {
      const release = this.takeSlot(delivery.endpointId);
      const send = this.deliver(
        delivery,
        readable.get(delivery.lineageId),
        () => secretsOf(delivery),
        release,
      )
        .catch((error) => this.options.onError?.(error))
        .finally(() => {
          release();
          this.sends.delete(send);
        });
      this.sends.add(send);
    }
    return deliveries.length;
  }

  /**
   * Counts a request in flight, overall and to its endpoint; the returned release gives the slot
   * back (once, however often it is called) and has it filled again soon.
   */
  private takeSlot(endpointId: string): () => void {
    this.running += 1;
    this.inFlight.set(endpointId, (this.inFlight.get(endpointId) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.running -= 1;
      const left = (this.inFlight.get(endpointId) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(endpointId);
      else this.inFlight.set(endpointId, left);
      // Freed slots are filled soon, not at the next poll, and together: a claim costs
      // several queries, which one claim per finished request would spend many times over.
      if (!this.stopped) this.schedule(REFILL_MS);
    };
  }

  /**
   * Sends one claimed delivery and records how it ended. The slot is given back as soon as the
   * request has ended: recording the outcome is not a request, and waits for others to join it.
   */
  /** One attempt, in a span of its own: the event's type and the attempt's number, no more. */
  private deliver(
    delivery: DeliveryToSend,
    readable: ChainInForce | undefined,
    secrets: () => readonly string[],
    release: () => void,
  ): Promise<void> {
    return inSpan(
      'notification delivery',
      { 'hadir.event.type': delivery.type, 'hadir.attempt': delivery.attempts + 1 },
      () => this.attempt(delivery, readable, secrets, release),
    );
  }

  private async attempt(
    delivery: DeliveryToSend,
    readable: ChainInForce | undefined,
    secrets: () => readonly string[],
    release: () => void,
  ): Promise<void> {
    const { store, clock } = this.options;
    const unreadable = whyNotSent(delivery, readable);
    if (unreadable) {
      await this.settlements.settle(
        delivery,
        { state: 'skipped', at: clock.now() },
        { status: null, error: unreadable, durationMs: 0 },
      );
      this.options.onOutcome?.('skipped');
      return;
    }
    const opened = this.openedOrNot(delivery, secrets);
    if (opened !== undefined && readable) await this.recordNamed(delivery, readable);
    const outcome: SendOutcome =
      opened === undefined
        ? { kind: 'failed', status: null, error: SECRET_UNREADABLE, durationMs: 0 }
        : await this.post(delivery, opened);
    release();
    const at = clock.now();
    const attempt = {
      status: outcome.kind === 'refused' ? null : outcome.status,
      error: outcome.kind === 'delivered' ? null : outcome.error,
      durationMs: outcome.durationMs,
    };
    if (outcome.kind === 'delivered') {
      await this.settlements.settle(delivery, { state: 'delivered', at }, attempt);
      await this.noteSuccess(delivery, at);
      this.options.onOutcome?.('delivered');
      return;
    }
    const next = nextAttemptAt(delivery.attempts, at, this.options.random);
    await this.settlements.settle(
      delivery,
      next === undefined ? { state: 'failed', at } : { state: 'pending', nextAttemptAt: next },
      attempt,
    );
    this.options.onOutcome?.(
      outcome.kind === 'refused' ? 'refused' : next === undefined ? 'failed' : 'retrying',
    );
    const failingSince = await noteEndpointFailure(store.db, delivery.endpointId, at);
    if (outcome.kind === 'failed' && outcome.status === 410) {
      await this.disable(delivery, at, 'gone');
    } else if (at - failingSince >= DISABLE_AFTER_FAILING_MS) {
      await this.disable(delivery, at, 'failing');
    }
  }

  /**
   * A notification that names respondents (those who left) is in the disclosure record before it
   * is sent, as every door's answer is: ids only, to the chain's key in force. Each attempt hands
   * them over again, and counts again.
   */
  private async recordNamed(delivery: DeliveryToSend, chain: ChainInForce): Promise<void> {
    if (delivery.type !== 'respondents.removed' || delivery.campaignId === null) return;
    const { ids } = JSON.parse(delivery.data) as { ids: string[] };
    if (ids.length === 0) return;
    await this.options.disclosures.record({
      at: this.options.clock.now(),
      recipient: { keyId: chain.keyId, lineageId: delivery.lineageId, accountId: chain.accountId },
      door: 'notification',
      campaignId: delivery.campaignId,
      fields: [],
      rowIds: NO_IDS,
      removalIds: idListOf(ids),
    });
  }

  /**
   * Records a success on the endpoint: at once when it was failing (that clock must stop), else
   * at most every SUCCESS_NOTE_MS, so a burst of deliveries does not write the endpoint's row
   * for each.
   */
  private async noteSuccess(delivery: DeliveryToSend, at: number): Promise<void> {
    const last = this.successNoted.get(delivery.endpointId);
    if (delivery.failingSince === null && last !== undefined && at - last < SUCCESS_NOTE_MS) return;
    this.successNoted.set(delivery.endpointId, at);
    await noteEndpointSuccess(this.options.store.db, delivery.endpointId, at);
  }

  /**
   * The endpoint's secrets, or undefined when they cannot be opened: the attempt then fails on
   * the usual schedule, saying why, and the operator is told once.
   */
  private openedOrNot(
    delivery: DeliveryToSend,
    secrets: () => readonly string[],
  ): readonly string[] | undefined {
    try {
      return secrets();
    } catch {
      if (!this.toldUnreadable.has(delivery.endpointId)) {
        this.toldUnreadable.add(delivery.endpointId);
        this.options.onWarning?.(
          `notification endpoint ${delivery.endpointId}: ${SECRET_UNREADABLE}`,
          {
            endpointId: delivery.endpointId,
          },
        );
      }
      return undefined;
    }
  }

  /** The endpoint's signing secrets: the current one, and the previous while it still signs. */
  private openSecrets(delivery: DeliveryToSend): string[] {
    const { sealKey, clock } = this.options;
    const secrets = [openSecret(delivery.secretSealed, sealKey, delivery.endpointId)];
    if (
      delivery.previousSecretSealed !== null &&
      (delivery.previousSecretUntil ?? 0) > clock.now()
    ) {
      secrets.push(openSecret(delivery.previousSecretSealed, sealKey, delivery.endpointId));
    }
    return secrets;
  }

  private post(delivery: DeliveryToSend, secrets: readonly string[]): Promise<SendOutcome> {
    const { clock } = this.options;
    const body = eventBody(delivery.type, delivery.createdAt, delivery.data);
    const timestamp = new Date(clock.now());
    return postNotification(
      delivery.url,
      {
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signatureHeader(secrets, delivery.id, timestamp, body),
      },
      body,
      this.options.sender,
    );
  }

  private async disable(delivery: DeliveryToSend, at: number, reason: DisableReason) {
    const { store, disabledNotice } = this.options;
    if (!(await disableEndpoint(store.db, delivery.endpointId, at, reason))) return;
    if (!disabledNotice) return;
    // A chain is named by its first key, whose holder the chain's keys all share.
    const holder = await findHolderOfKey(store.db, delivery.lineageId);
    if (!holder) return;
    await disabledNotice.mailer.send({
      to: holder.email,
      ...disabledNotice.compose(delivery.url, reason),
    });
  }
}

/**
 * Why a delivery is not sent, or undefined when it may be: the endpoint's key must be in force,
 * and may read the campaign at this moment. A `campaign.removed` is the exception: it says only
 * that the key lost a campaign it could read.
 */
export function whyNotSent(
  delivery: Pick<DeliveryToSend, 'type' | 'campaignId' | 'eventLineageId'>,
  readable: ChainInForce | undefined,
): string | undefined {
  if (!readable) return 'the key is revoked or expired, or its account deactivated';
  if (delivery.campaignId === null) return undefined;
  const scope = readable.campaigns.get(delivery.campaignId);
  if (delivery.type === 'campaign.removed') {
    return delivery.eventLineageId !== null || scope
      ? undefined
      : 'the key cannot read the campaign';
  }
  if (!scope) return "the campaign left the key's scope";
  if (!scope.live) return 'the campaign was deleted';
  return undefined;
}
