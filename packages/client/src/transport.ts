import type { AnswerEvent, HadirClientOptions } from './client-options.js';
import { HadirApiError, HadirNetworkError } from './errors.js';
import { backoffDelay, isRetryableStatus, retryAfterSeconds, sleep } from './retry.js';

const PREFIX = '/developer/v1';

/** How the SDK names itself unless told otherwise (see HadirClientOptions.userAgent). */
const DEFAULT_USER_AGENT = 'hadir-client/1';

/** A request's query parameters: a list is sent as the parameter repeated. */
export type Query = Record<string, string | readonly string[]>;

/**
 * How the client's requests go: the key as bearer, 304s for conditional reads, 429s waited out
 * for their Retry-After (R3), 5xx answers and network errors retried with backoff, and every other
 * answer an error with the service's envelope.
 */
export class Transport {
  readonly #options: HadirClientOptions;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: HadirClientOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#sleep = options.sleep ?? sleep;
  }

  async get<T>(
    path: string,
    query: Query,
    signal?: AbortSignal,
    conditional?: { etag: string | undefined; seen: (etag: string | undefined) => void },
  ): Promise<T> {
    const url = new URL(`${this.#options.baseUrl.replace(/\/+$/, '')}${PREFIX}${path}`);
    for (const [name, value] of Object.entries(query)) {
      for (const each of [value].flat()) url.searchParams.append(name, each);
    }
    const abort = signal ?? this.#options.signal;
    const maxRetries = this.#options.maxRetries ?? 4;
    const maxWaits = this.#options.maxRateLimitWaits ?? 50;
    let failures = 0;
    let waits = 0;
    for (;;) {
      let response: Response;
      try {
        response = await this.#fetch(url, {
          headers: {
            authorization: `Bearer ${this.#options.apiKey}`,
            accept: 'application/json',
            'user-agent': this.#options.userAgent ?? DEFAULT_USER_AGENT,
            ...(conditional?.etag ? { 'if-none-match': conditional.etag } : {}),
          },
          ...(abort ? { signal: abort } : {}),
        });
      } catch (error) {
        if (abort?.aborted) throw error;
        const failure = new HadirNetworkError(url.toString(), error);
        if (failures >= maxRetries) throw failure;
        await this.#backoff(url, ++failures, `network error: ${failure.why}`, abort);
        continue;
      }
      this.#options.onAnswer?.(answerEvent(url, response));
      if (conditional && response.status === 304) return undefined as T;
      if (response.ok) {
        conditional?.seen(response.headers.get('etag') ?? undefined);
        return (await response.json()) as T;
      }

      const requestId = response.headers.get('x-request-id') ?? undefined;
      if (response.status === 429 && waits < maxWaits) {
        waits += 1;
        const seconds = retryAfterSeconds(response.headers.get('retry-after')) ?? 1;
        await response.body?.cancel();
        this.#options.onRateLimit?.({ url: url.toString(), retryAfterSeconds: seconds });
        await this.#sleep(seconds * 1000, abort);
        continue;
      }
      if (isRetryableStatus(response.status) && response.status !== 429 && failures < maxRetries) {
        await response.body?.cancel();
        await this.#backoff(url, ++failures, `HTTP ${response.status}`, abort);
        continue;
      }
      const envelope = (await response.json().catch(() => undefined)) as
        | { error?: { code?: string; message?: string } }
        | undefined;
      throw new HadirApiError(
        response.status,
        envelope?.error?.code ?? 'unknown_error',
        envelope?.error?.message ?? response.statusText,
        requestId,
      );
    }
  }

  async #backoff(url: URL, attempt: number, reason: string, signal: AbortSignal | undefined) {
    const delayMs = backoffDelay(
      attempt,
      this.#options.retryBaseDelayMs ?? 500,
      this.#options.retryMaxDelayMs ?? 30_000,
    );
    this.#options.onRetry?.({ url: url.toString(), attempt, delayMs, reason });
    await this.#sleep(delayMs, signal);
  }
}

/** The answer's status and the RateLimit-* headers it carries. */
function answerEvent(url: URL, response: Response): AnswerEvent {
  const limit = Number(response.headers.get('ratelimit-limit'));
  const remaining = Number(response.headers.get('ratelimit-remaining'));
  const resetSeconds = Number(response.headers.get('ratelimit-reset'));
  const known = response.headers.has('ratelimit-limit') && Number.isFinite(limit);
  return {
    url: url.toString(),
    status: response.status,
    ...(known ? { rateLimit: { limit, remaining, resetSeconds } } : {}),
  };
}
