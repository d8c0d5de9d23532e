import { Webhook } from 'standardwebhooks';
import type { webhooks } from './api-types.generated.js';

/** A notification's body, as the OpenAPI document's `webhooks` publish it. */
type EventBody<T extends keyof webhooks> = NonNullable<
  webhooks[T]['post']['requestBody']
>['content']['application/json'];

/**
 * The events Hadir sends: ids, counts and times, never an answer (read those with the key).
 * Generated from the OpenAPI document's `webhooks`, so they cannot drift from what is sent.
 */
export type HadirEvent = { [T in keyof webhooks]: EventBody<T> }[keyof webhooks];

export type HadirEventType = HadirEvent['type'];

/** A notification that is not Hadir's, was changed on the way, or is too old to trust. */
export class HadirWebhookError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'HadirWebhookError';
  }
}

/**
 * A notification whose `webhook-id` was verified before, within the tolerance: a replay of a
 * captured request, or a retry of one already taken. Answer it with a 2xx and do nothing.
 */
export class HadirWebhookReplayError extends HadirWebhookError {
  readonly messageId: string;

  constructor(messageId: string) {
    super(`the notification ${messageId} was received before (a replay or a retry): ignore it`);
    this.name = 'HadirWebhookReplayError';
    this.messageId = messageId;
  }
}

/** How far a notification's timestamp may be from now (the Standard Webhooks tolerance). */
export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;

/**
 * Remembers the ids of verified notifications for as long as their timestamp would still be
 * accepted, so that a request captured and sent again within that time is known: the timestamp
 * check alone lets it through. One guard per receiving process; at most `maxIds` are kept (the
 * oldest go first).
 */
export class WebhookReplayGuard {
  readonly #seen = new Map<string, number>();
  readonly #now: () => number;
  readonly #maxIds: number;

  constructor(options: { now?: () => number; maxIds?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxIds = options.maxIds ?? 100_000;
  }

  /** True the first time `id` comes within the window; false when it came before. */
  firstSeen(id: string, timestampSeconds: number): boolean {
    const now = this.#now();
    for (const [seen, until] of this.#seen) {
      if (until > now && this.#seen.size < this.#maxIds) break;
      this.#seen.delete(seen);
    }
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, Math.max(now, timestampSeconds * 1000) + WEBHOOK_TOLERANCE_MS);
    return true;
  }
}

/** Request headers as Node's `http`, Express, Fastify or the Fetch API give them. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | readonly string[] | undefined>;
  const value =
    record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(' ') : (value as string | undefined);
}

/**
 * Verifies a notification over its raw body (as received: parse it after, never before) and
 * returns its event. Every signature in the header is tried against each secret given (during a
 * rotation, both), and the timestamp must be within 5 minutes of now. Throws HadirWebhookError
 * otherwise; with a `replayGuard`, HadirWebhookReplayError for an id verified before.
 */
export function verifyWebhook(input: {
  secret: string | readonly string[];
  headers: WebhookHeaders;
  body: string | Uint8Array;
  replayGuard?: WebhookReplayGuard;
}): HadirEvent {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = headerOf(input.headers, name);
    if (value === undefined) throw new HadirWebhookError(`the ${name} header is missing`);
    headers[name] = value;
  }
  const body = typeof input.body === 'string' ? input.body : new TextDecoder().decode(input.body);
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  let failure: unknown;
  for (const secret of secrets) {
    let event: HadirEvent;
    try {
      event = new Webhook(secret).verify(body, headers) as HadirEvent;
    } catch (error) {
      failure = error;
      continue;
    }
    const id = headers['webhook-id'] as string;
    const timestamp = Number(headers['webhook-timestamp']);
    if (input.replayGuard && !input.replayGuard.firstSeen(id, timestamp)) {
      throw new HadirWebhookReplayError(id);
    }
    return event;
  }
  throw new HadirWebhookError(
    `the notification could not be verified: ${(failure as Error | undefined)?.message ?? 'no secret given'}`,
    { cause: failure },
  );
}
