import type { HadirClientOptions } from './client-options.js';
import { filterQuery, type RespondentFilter } from './filters.js';
import { type Query, Transport } from './transport.js';
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
  readonly #transport: Transport;

  constructor(options: HadirClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.#transport = new Transport(options);
  }

  /** The campaigns this key may read. */
  async campaigns(signal?: AbortSignal): Promise<Campaign[]> {
    const body = await this.#transport.get<{ data: Campaign[] }>('/campaigns', {}, signal);
    return body.data;
  }

  /** A campaign's totals and breakdowns; of the respondents `filter` matches, when given. */
  async summary(
    campaignId: string,
    options?: AbortSignal | { filter?: RespondentFilter; signal?: AbortSignal },
  ): Promise<Summary> {
    const { filter, signal } =
      options instanceof AbortSignal ? { signal: options } : (options ?? {});
    return this.#transport.get<Summary>(
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
    const body = await this.#transport.get<T | undefined>(path, {}, signal, {
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
        body = await this.#transport.get<RespondentsPage>(path, query, options.signal);
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
    return this.#transport.get<RespondentsPage>(path, onePageQuery(options), options.signal);
  }

  /** One page of the removals feed: the first after `since`, or the one after `cursor`. */
  async removalsPage(
    campaignId: string,
    options: RemovalsOptions & { cursor?: string } = {},
  ): Promise<RemovalsPage> {
    const path = `/campaigns/${encodeURIComponent(campaignId)}/removals`;
    return this.#transport.get<RemovalsPage>(path, onePageQuery(options), options.signal);
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
    const page = await this.#transport.get<ChangesPage | undefined>(
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
    return (await this.#transport.get<{ data: FieldDefinition[] }>(path, {}, signal)).data;
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
}
