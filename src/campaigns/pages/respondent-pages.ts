import { parseDatabaseUrl } from '../../db/connect.ts';
import type { Store } from '../../db/store.ts';
import { ApiError } from '../../errors.ts';
import type { CachedResponse } from '../../http/response-cache.ts';
import { SingleFlight } from '../../single-flight.ts';
import {
  emptyPage,
  type Page,
  type PageRequest,
  type PageWriting,
  writePage,
} from './page-body.ts';
import { CursorCodec, type CursorReading, type PageCursor } from './page-cursor.ts';
import {
  nearestKnownEnd,
  type PageContext,
  PagePositions,
  type Position,
} from './page-positions.ts';
import {
  countRespondents,
  findEveryNthPosition,
  findRespondentLines,
} from './page-rows.repository.ts';
import { PageThreads } from './page-threads.ts';

/** A respondents query as a client sent it (spec, GET …/respondents, plus `cursor`). */
export interface RespondentsQuery {
  page: number;
  limit: number;
  sinceMs?: number | undefined;
  /** `meta.nextCursor` of an earlier page, as sent: the rows after it; `page` is then the cursor's. */
  cursor?: string;
}

/** A query with its cursor checked (see RespondentPages.resolve). */
export interface PageQuery {
  page: number;
  limit: number;
  sinceMs: number | undefined;
  cursor?: PageCursor;
}

/** What a page depends on of its campaign: the version every read sees, and its row count. */
export interface PagedCampaign {
  id: string;
  version: number;
  responses: number;
}

/**
 * Pages of a campaign's respondents, the one door to this folder: reading a page's rows (per
 * engine), writing its body (in page threads, or here), cursors and keyset positions. Nothing
 * outside knows about threads or line formats.
 */
export interface RespondentPages {
  /** The query with its cursor checked: 400 for a forged one, or one from another query. */
  resolve(campaignId: string, query: RespondentsQuery): PageQuery;
  /** One page's bytes, for an allow-list (the compiled projection's field keys). */
  read(
    campaign: PagedCampaign,
    fieldKeys: readonly string[],
    query: PageQuery,
  ): Promise<CachedResponse>;
  /** Starts the page threads now rather than at the first page (a listening server). */
  start(): void;
  /** Page threads running, for metrics. */
  readonly threadsRunning: number;
  close(): Promise<void>;
}

export interface RespondentPagesOptions {
  /** The key cursors are signed with (see CursorCodec). */
  cursorKey: Buffer;
  /** Threads that write pages; 0 writes them here. */
  threads: number;
  /** The quote-jumping field cutter; off only for the benchmark's ablation. */
  quoteJumping: boolean;
  /** Whether concurrent requests for one deep page share one search for its start. */
  shareStarts: boolean;
}

/** Why a cursor a client sent is refused, naming what to do about it. */
function cursorProblem(reading: Exclude<CursorReading, { kind: 'valid' }>): string {
  switch (reading.kind) {
    case 'forged':
      return "query parameter 'cursor' is not a cursor this service issued, or was altered";
    case 'other_query':
      return reading.what === 'campaign'
        ? "query parameter 'cursor' was issued for another campaign"
        : `query parameter 'cursor' was issued with another '${reading.what}': send the same ${reading.what} as the request that returned it`;
  }
}

/**
 * Page threads for the store: on a SQLite file they read through connections of their own; on
 * PostgreSQL they write lines read here. A private in-memory SQLite store has none (a thread
 * could not open it).
 */
function threadsFor(store: Store, options: RespondentPagesOptions): PageThreads | undefined {
  if (options.threads === 0) return undefined;
  const thread = {
    count: options.threads,
    cursorKey: options.cursorKey,
    quoteJumping: options.quoteJumping,
  };
  if (store.engine === 'postgres')
    return new PageThreads({ readsFrom: 'main-thread', store }, thread);
  const location = parseDatabaseUrl(store.url);
  if (location.engine === 'sqlite' && location.path === ':memory:') return undefined;
  return new PageThreads({ readsFrom: 'sqlite-file', url: store.url }, thread);
}

export function createRespondentPages(
  store: Store,
  options: RespondentPagesOptions,
): RespondentPages {
  const cursors = new CursorCodec(options.cursorKey);
  const writing: PageWriting = { cursors, quoteJumping: options.quoteJumping };
  const threads = threadsFor(store, options);
  const write = threads
    ? (request: PageRequest) => threads.write(request)
    : async (request: PageRequest): Promise<Page> => {
        const { campaignId, sinceMs, after, limit } = request;
        const lines = await findRespondentLines(store, { campaignId, sinceMs, after }, limit + 1);
        return writePage(lines, request, writing);
      };
  const positions = new PagePositions();
  // A deep page's start may take one pass over the index; concurrent requests share that pass.
  const pageStarts = new SingleFlight<Position | null | undefined>(options.shareStarts);

  /** Where page `page` starts: after the last row of page - 1, found by keyset from a known end. */
  async function pageStart(
    context: PageContext,
    campaignId: string,
    query: PageQuery,
  ): Promise<Position | null | undefined> {
    if (query.page === 1) return null;
    const known = context.pageEnds.get(query.page - 1);
    if (known) return known;
    const from = nearestKnownEnd(context.pageEnds, query.page - 1);
    const missing = query.page - 1 - from.page;
    const ends = await findEveryNthPosition(
      store,
      { campaignId, sinceMs: query.sinceMs, after: from.after },
      query.limit,
      missing,
    );
    positions.remember(
      context,
      ends.map((position, index): [number, Position] => [from.page + 1 + index, position]),
    );
    return ends.length === missing ? ends[missing - 1] : undefined;
  }

  return {
    resolve(campaignId, query) {
      const { page, limit, sinceMs } = query;
      if (query.cursor === undefined) return { page, limit, sinceMs };
      const reading = cursors.decode(query.cursor, { campaignId, sinceMs, limit });
      if (reading.kind !== 'valid') throw new ApiError('invalid_parameter', cursorProblem(reading));
      return { page, limit, sinceMs, cursor: reading.cursor };
    },

    async read(campaign, fieldKeys, query) {
      const campaignId = campaign.id;
      const context = positions.context(campaignId, campaign.version, query.sinceMs, query.limit);
      if (context.total === undefined) {
        context.total =
          query.sinceMs === undefined
            ? campaign.responses
            : await countRespondents(store, { campaignId, sinceMs: query.sinceMs });
      }
      const total = context.total;
      const page = query.cursor?.page ?? query.page;
      const meta = { total, page, limit: query.limit, totalPages: Math.ceil(total / query.limit) };
      if (!query.cursor && page > meta.totalPages) return emptyPage(meta);

      const after = query.cursor
        ? query.cursor.after
        : await pageStarts.run(
            `${campaignId}\u0000${campaign.version}\u0000${query.sinceMs ?? ''}\u0000${query.limit}\u0000${query.page}`,
            () => pageStart(context, campaignId, query),
          );
      if (after === undefined) return emptyPage(meta);
      const { response, end } = await write({
        campaignId,
        sinceMs: query.sinceMs,
        after,
        limit: query.limit,
        fieldKeys,
        meta,
      });
      if (end && !query.cursor) positions.remember(context, [[page, end]]);
      return response;
    },

    start: () => threads?.startAll(),
    get threadsRunning() {
      return threads?.running ?? 0;
    },
    close: async () => threads?.close(),
  };
}
