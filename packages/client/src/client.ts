import { HadirApiError, HadirNetworkError } from './errors.js';
import { filterQuery, type RespondentFilter } from './filters.js';
import { backoffDelay, isRetryableStatus, retryAfterSeconds, sleep } from './retry.js';
import type {
  Campaign,
  ChangesPage,
  FieldDefinition,
  Removal,
  RemovalsPage,
  Respondent,
  RespondentsPage,
  Summary,
} from './types.js';

export interface RateLimitEvent {
  url: string;
  retryAfterSeconds: number;
}

export interface RetryEvent {
  url: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

/** What the service answered one request: its status, and the key's budget as it stands. */
export interface AnswerEvent {
  url: string;
  status: number;
  /** From the RateLimit-* headers, when the answer has them. */
  rateLimit?: { limit: number; remaining: number; resetSeconds: number };
}

export interface HadirClientOptions {
  /** The service root, e.g. https://hadir.example.com (the /developer/v1 prefix is added). */
  baseUrl: string;
  /** A `hadir_sk_…` key. Keep it on a server: never in browser code or a repository. */
  apiKey: string;
  /** Attempts after the first for 5xx answers and network errors (default 4). */
  maxRetries?: number;
  /** 429 answers waited out for one request before giving up (default 50). */
  maxRateLimitWaits?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Called before each wait on a 429 (R3). */
  onRateLimit?: (event: RateLimitEvent) => void;
  /** Called before each retry of a 5xx answer or a network error. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Called on every answer, before it is read: a `304` is not counted by the rate limit, any
   * other status is. For clients that pace themselves within the key's budget.
   */
  onAnswer?: (event: AnswerEvent) => void;
  signal?: AbortSignal;
  /** For tests and custom transports. */
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RespondentsOptions {
  /** Only rows modified strictly after this instant (ISO-8601 with Z or an offset). */
  since?: string;
  /** Only the respondents that pass it, matched by the server (see RespondentFilter). */
  filter?: RespondentFilter;
  /** Rows per request, 1 to 200 (default 200: fewest requests). */
  limit?: number;
  /**
   * Continue after this `meta.nextCursor` of an earlier walk (with the same `since` and `limit`),
   * e.g. to resume an interrupted sync from its checkpoint.
   */
  cursor?: string;
  signal?: AbortSignal;
}

export interface RemovalsOptions {
  /** Only removals strictly after this instant: your last removals watermark. */
  since?: string;
  /** Removals per request, 1 to 200 (default 200). */
  limit?: number;
  signal?: AbortSignal;
}

export interface ChangesOptions {
  /** The `meta.until` of your last walk of the feed; without it, every current respondent. */
  since?: string;
  /** Changes per request, 1 to 200 (default 200). */
  limit?: number;
  signal?: AbortSignal;
}

const PREFIX = '/developer/v1';

/** A request's query parameters: a list is sent as the parameter repeated. */
type Query = Record<string, string | readonly string[]>;

/**
 * The query of one page: its size (200 unless given: fewest requests), since and cursor. A cursor
 * carries the size and since of its listing, so beside one only what the caller gave is sent.
 */
function onePageQuery(options: {
  limit?: number;
  since?: string;
  cursor?: string;
  filter?: RespondentFilter;
}) {
  const query: Query = filterQuery(options.filter);
  if (options.limit !== undefined || options.cursor === undefined) {
    query.limit = String(options.limit ?? 200);
  }
  if (options.since !== undefined) query.since = options.since;
  if (options.cursor !== undefined) query.cursor = options.cursor;
  return query;
}
/** Page-number passes are repeated while rows are missing (edits can shift rows past a page). */
const MAX_PAGE_PASSES = 5;

/**
 * A client that follows the spec's rules for everyone: R1 typed optional fields, R2 paging by the
 * fresh totalPages (or the server's cursor), R3 waiting out Retry-After on one connection at a
 * time, and ids to upsert by (R4).
 */
export class HadirClient {
  readonly #options: HadirClientOptions;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: HadirClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#sleep = options.sleep ?? sleep;
  }

  /** The campaigns this key may read. */
  async campaigns(signal?: AbortSignal): Promise<Campaign[]> {
    const body = await this.#get<{ data: Campaign[] }>('/campaigns', {}, signal);
    return body.data;
  }

  /** A campaign's totals and breakdowns; of the respondents `filter` matches, when given. */
  async summary(
    campaignId: string,
    options?: AbortSignal | { filter?: RespondentFilter; signal?: AbortSignal },
  ): Promise<Summary> {
    const { filter, signal } =
      options instanceof AbortSignal ? { signal: options } : (options ?? {});
    return this.#get<Summary>(
      `/campaigns/${encodeURIComponent(campaignId)}/summary`,
      filterQuery(filter),
      signal,
    );
  }

  /**
   * The summary, unless it is the same as when it answered `etag`: a conditional request, which
   * the rate limit does not count when it is answered 304. Any change to the campaign's rows
   * (added, edited or removed) changes its summary's ETag: a cheap way to ask "anything new?".
   */
  async summaryIfChanged(
    campaignId: string,
    etag: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ summary: Summary; etag: string | undefined } | 'unchanged'> {
    const answer = await this.#getIfChanged<Summary>(
      `/campaigns/${encodeURIComponent(campaignId)}/summary`,
      etag,
      signal,
    );
    return answer === 'unchanged' ? answer : { summary: answer.body, etag: answer.etag };
  }

  /**
   * The campaigns this key may read, unless the list is the same as when it answered `etag`
   * (a `304`, which the rate limit does not count).
   */
  async campaignsIfChanged(
    etag: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ campaigns: Campaign[]; etag: string | undefined } | 'unchanged'> {
    const answer = await this.#getIfChanged<{ data: Campaign[] }>('/campaigns', etag, signal);
    return answer === 'unchanged' ? answer : { campaigns: answer.body.data, etag: answer.etag };
  }

  /**
   * The allow-listed fields' definitions, unless they are the same as when they answered `etag`
   * (a `304`, which the rate limit does not count).
   */
  async fieldsIfChanged(
    campaignId: string,
    etag: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ fields: FieldDefinition[]; etag: string | undefined } | 'unchanged'> {
    const answer = await this.#getIfChanged<{ data: FieldDefinition[] }>(
      `/campaigns/${encodeURIComponent(campaignId)}/fields`,
      etag,
      signal,
    );
    return answer === 'unchanged' ? answer : { fields: answer.body.data, etag: answer.etag };
  }

  /** A GET with If-None-Match: its body and ETag, or 'unchanged' for a 304. */
  async #getIfChanged<T>(
    path: string,
    etag: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ body: T; etag: string | undefined } | 'unchanged'> {
    let seen: string | undefined;
    const body = await this.#get<T | undefined>(path, {}, signal, {
      etag,
      seen: (value) => {
        seen = value;
      },
    });
    return body === undefined ? 'unchanged' : { body, etag: seen };
  }

  /**
   * Every page of respondents in server order, never re-sorted. With a server that offers
   * `meta.nextCursor` it follows the cursor; otherwise it pages until `page >= totalPages`, read
   * fresh from each answer, and repeats the pass when the ids received do not cover `meta.total`.
   */
  async *respondentPages(
    campaignId: string,
    options: RespondentsOptions = {},
  ): AsyncGenerator<RespondentsPage> {
    const path = `/campaigns/${encodeURIComponent(campaignId)}/respondents`;
    const base: Query = { ...filterQuery(options.filter), limit: String(options.limit ?? 200) };
    if (options.since !== undefined) base.since = options.since;

    for (let pass = 1; pass <= MAX_PAGE_PASSES; pass++) {
      const seen = new Set<string>();
      let total = 0;
      let cursor: string | null | undefined = pass === 1 ? options.cursor : undefined;
      let body: RespondentsPage;
      for (let page = 1; ; page++) {
        const query: Query = cursor ? { ...base, cursor } : { ...base, page: String(page) };
        body = await this.#get<RespondentsPage>(path, query, options.signal);
        for (const row of body.data) seen.add(row.id);
        total = body.meta.total;
        yield body;
        if (body.meta.nextCursor !== undefined) {
          // The server offers keyset paging: it cannot skip a row, so one pass is enough.
          if (body.meta.nextCursor === null) return;
          cursor = body.meta.nextCursor;
        } else if (page >= body.meta.totalPages) {
          break;
        }
      }
      if (seen.size >= total) return;
    }
  }

  /**
   * One page of respondents: the first, or the one after `cursor` (a `meta.nextCursor` of an
   * earlier page, which carries that page's `since` and `limit`). For a whole campaign use
   * `respondents`.
   */
  async respondentsPage(
    campaignId: string,
    options: RespondentsOptions = {},
  ): Promise<RespondentsPage> {
    const path = `/campaigns/${encodeURIComponent(campaignId)}/respondents`;
    return this.#get<RespondentsPage>(path, onePageQuery(options), options.signal);
  }

  /** One page of the removals feed: the first after `since`, or the one after `cursor`. */
  async removalsPage(
    campaignId: string,
    options: RemovalsOptions & { cursor?: string } = {},
  ): Promise<RemovalsPage> {
    const path = `/campaigns/${encodeURIComponent(campaignId)}/removals`;
    return this.#get<RemovalsPage>(path, onePageQuery(options), options.signal);
  }

  /**
   * One page of the changes feed: the first after `since`, or the one after `cursor`. With
   * `etag` (the ETag of an earlier answer to the same request), 'unchanged' when nothing is new:
   * a `304`, which the rate limit does not count.
   */
  async changesPage(
    campaignId: string,
    options: ChangesOptions & { cursor?: string; etag?: string } = {},
  ): Promise<{ page: ChangesPage; etag: string | undefined } | 'unchanged'> {
    const path = `/campaigns/${encodeURIComponent(campaignId)}/changes`;
    let etag: string | undefined;
    const page = await this.#get<ChangesPage | undefined>(
      path,
      onePageQuery(options),
      options.signal,
      {
        etag: options.etag,
        seen: (value) => {
          etag = value;
        },
      },
    );
    return page === undefined ? 'unchanged' : { page, etag };
  }

  /**
   * Every page of a campaign's changes after `since` (every current respondent without it), by
   * the server's cursor, in the order Hadir applied them: upsert each `upsert` by id and delete
   * each `removal`, in order. Keep the last page's `meta.until` and pass it as `since` next time.
   * A `since` older than the feed keeps throws HadirApiError 410 `full_sync_required`: walk it
   * again without `since`.
   */
  async *changePages(
    campaignId: string,
    options: ChangesOptions = {},
  ): AsyncGenerator<ChangesPage> {
    let cursor: string | null = null;
    do {
      const answer = await this.changesPage(campaignId, {
        ...options,
        ...(cursor === null ? {} : { cursor }),
      });
      if (answer === 'unchanged') return;
      yield answer.page;
      cursor = answer.page.meta.nextCursor;
    } while (cursor !== null);
  }

  /**
   * The questions behind the field keys the key may read: key, label, type and form position,
   * in form order.
   */
  async fields(campaignId: string, signal?: AbortSignal): Promise<FieldDefinition[]> {
    const path = `/campaigns/${encodeURIComponent(campaignId)}/fields`;
    return (await this.#get<{ data: FieldDefinition[] }>(path, {}, signal)).data;
  }

  /**
   * Every page of the campaign's removals feed after `since` (all kept removals without it), by
   * the server's cursor. Each page's `meta.until` is a removals watermark: keep the first one
   * before a full pass and pass it as `since` after it. A `since` older than the feed keeps
   * throws HadirApiError 410 `full_sync_required`: re-read the campaign.
   */
  async *removalPages(
    campaignId: string,
    options: RemovalsOptions = {},
  ): AsyncGenerator<RemovalsPage> {
    let cursor: string | null = null;
    do {
      const body: RemovalsPage = await this.removalsPage(campaignId, {
        ...options,
        ...(cursor === null ? {} : { cursor }),
      });
      yield body;
      cursor = body.meta.nextCursor;
    } while (cursor !== null);
  }

  /** Every removal after `since`, one by one (see `removalPages`): delete each id from your copy. */
  async *removals(campaignId: string, options: RemovalsOptions = {}): AsyncGenerator<Removal> {
    for await (const page of this.removalPages(campaignId, options)) yield* page.data;
  }

  /** Every respondent, row by row (see `respondentPages`). Upsert them by `id` (R4). */
  async *respondents(
    campaignId: string,
    options: RespondentsOptions = {},
  ): AsyncGenerator<Respondent> {
    for await (const page of this.respondentPages(campaignId, options)) yield* page.data;
  }

  async #get<T>(
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
