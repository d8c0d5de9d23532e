import { LRUCache } from 'lru-cache';
import type { Store } from '../../db/store.ts';
import type { CachedResponse } from '../../http/response-cache.ts';
import { CursorCodec } from '../../paging/page-cursor.ts';
import type { PageQuery, Paging } from '../../paging/page-query.ts';
import { pageMeta } from '../../paging/page-query.ts';
import { SingleFlight } from '../../single-flight.ts';
import type { Speedups } from '../../speedups.ts';
import { DEFAULT_PAGE_LIMIT } from '../campaigns.schemas.ts';
import type { Projection } from '../field-projection.ts';
import { narrowingIdentity, narrowingOf, type RespondentFilter } from '../respondent-filter.ts';
import { emptyPage, type PageWriting, writePage } from './page-body.ts';
import {
  countRespondents,
  findEveryNthPosition,
  findRespondentLines,
  readPageText,
} from './page-rows.repository.ts';
import {
  linePosition,
  type Position,
  type ProjectedRespondent,
  projectedRespondent,
  RESPONDENT_POSITIONS,
} from './respondent-line.ts';

export type { Position, ProjectedRespondent };

/** Rows read at a time for a whole campaign: one synchronous read on SQLite, kept short. */
export const WHOLE_CAMPAIGN_BATCH = 500;

/** What a page depends on of its campaign: the version every read sees, and its row count. */
export interface PagedCampaign {
  id: string;
  version: number;
  responses: number;
}

/**
 * Pages of a campaign's respondents, the one door to this folder: reading a page's rows (per
 * engine), writing its body, cursors and keyset positions. Nothing outside knows line formats.
 */
export interface RespondentPages {
  /** How a client's query is read (see readPageQuery). */
  readonly paging: Paging<Position>;
  /**
   * One page's bytes, for an allow-list (the compiled projection's field keys), of the rows that
   * pass `narrow` (the query's narrowing, checked against the allow-list), or of every row.
   */
  read(
    campaign: PagedCampaign,
    fieldKeys: readonly string[],
    query: PageQuery<Position>,
    narrow?: RespondentFilter,
  ): Promise<CachedResponse>;
  /**
   * Every respondent of a campaign in spec order, its fields picked by `projection`, read a batch
   * at a time by keyset, so memory stays flat whatever the campaign's size (a file's rows).
   */
  every(campaignId: string, projection: Projection): AsyncGenerator<ProjectedRespondent>;
}

export interface RespondentPagesOptions {
  /** The key cursors are signed with (see CursorCodec). */
  cursorKey: Buffer;
  /** The quote-jumping field cutter and shared page starts (single flight). */
  speedups: Speedups;
}

export function createRespondentPages(
  store: Store,
  options: RespondentPagesOptions,
): RespondentPages {
  const cursors = new CursorCodec(options.cursorKey, RESPONDENT_POSITIONS);
  const writing: PageWriting = {
    cursors,
    quoteJumping: options.speedups.on('quote-jumping-cutter'),
  };
  const positions = new PagePositions();
  // A deep page's start may take one pass over the index; concurrent requests share that pass.
  const pageStarts = new SingleFlight<Position | null | undefined>(
    options.speedups.on('single-flight'),
  );

  /** Where page `page` starts: after the last row of page - 1, found by keyset from a known end. */
  async function pageStart(
    context: PageContext,
    campaignId: string,
    query: PageQuery<Position>,
    narrow: RespondentFilter | undefined,
  ): Promise<Position | null | undefined> {
    if (query.page === 1) return null;
    const known = context.pageEnds.get(query.page - 1);
    if (known) return known;
    const from = nearestKnownEnd(context.pageEnds, query.page - 1);
    const missing = query.page - 1 - from.page;
    const ends = await findEveryNthPosition(
      store,
      { campaignId, sinceMs: query.sinceMs, after: from.after, narrow },
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
    paging: { cursors, defaultLimit: DEFAULT_PAGE_LIMIT, narrowingOf },

    async read(campaign, fieldKeys, query, narrow) {
      const campaignId = campaign.id;
      const filterIdentity = narrow ? narrowingIdentity(query.narrowing) : '';
      const context = positions.context(
        campaignId,
        campaign.version,
        `${query.sinceMs ?? ''}\u0000${filterIdentity}`,
        query.limit,
      );
      if (context.total === undefined) {
        context.total =
          query.sinceMs === undefined && !narrow
            ? campaign.responses
            : await countRespondents(store, { campaignId, sinceMs: query.sinceMs, narrow });
      }
      const total = context.total;
      const meta = pageMeta(total, query);
      const { page } = query;
      if (!query.after && page > meta.totalPages) return emptyPage(meta);

      const after = query.after
        ? query.after
        : await pageStarts.run(`${context.key}\u0000${query.page}`, () =>
            pageStart(context, campaignId, query, narrow),
          );
      if (after === undefined) return emptyPage(meta);
      const { sinceMs, limit } = query;
      const text = await readPageText(store, { campaignId, sinceMs, after, narrow }, limit + 1);
      const { response, end } = writePage(
        text.take() ?? '',
        { campaignId, sinceMs, narrowing: query.narrowing, after, limit, fieldKeys, meta },
        writing,
      );
      if (end && !query.after) positions.remember(context, [[page, end]]);
      return response;
    },

    async *every(campaignId, projection) {
      const served = projection.fieldKeys.map(() => false);
      let after: Position | null = null;
      for (;;) {
        const lines = await findRespondentLines(store, { campaignId, after }, WHOLE_CAMPAIGN_BATCH);
        for (const line of lines) yield projectedRespondent(line, projection, served);
        const last = lines.at(-1);
        if (lines.length < WHOLE_CAMPAIGN_BATCH || last === undefined) return;
        after = linePosition(last);
      }
    },
  };
}

/**
 * Where pages end, remembered per (campaign version, since and filters, limit), so that page N is read by
 * keyset from the end of page N-1 instead of by OFFSET. Any write to a campaign bumps its version,
 * which starts a fresh entry: a remembered position is never used against changed data.
 */
export interface PageContext {
  readonly key: string;
  /** Matching rows for this (version, since, filters); filled on first use. */
  total?: number;
  /** Last row of page n, for the pages seen so far. */
  readonly pageEnds: Map<number, Position>;
}

const MAX_REMEMBERED_POSITIONS = 500_000;

export class PagePositions {
  readonly #contexts = new LRUCache<string, PageContext>({
    maxSize: MAX_REMEMBERED_POSITIONS,
    sizeCalculation: (context) => context.pageEnds.size + 1,
  });

  /** The context of a campaign's version, read with one `query` (its since and filters) and limit. */
  context(campaignId: string, version: number, query: string, limit: number): PageContext {
    const key = `${campaignId}\u0000${version}\u0000${query}\u0000${limit}`;
    let context = this.#contexts.get(key);
    if (!context) {
      context = { key, pageEnds: new Map() };
      this.#contexts.set(key, context);
    }
    return context;
  }

  /** Records page ends and re-weighs the entry so the cache stays within its bound. */
  remember(context: PageContext, ends: Iterable<[number, Position]>): void {
    for (const [page, position] of ends) context.pageEnds.set(page, position);
    this.#contexts.set(context.key, context);
  }
}

/** The nearest page at or before `page` whose end is known (0 = the start of the rows). */
export function nearestKnownEnd(
  pageEnds: ReadonlyMap<number, Position>,
  page: number,
): { page: number; after: Position | null } {
  let best = 0;
  let after: Position | null = null;
  for (const [known, position] of pageEnds) {
    if (known <= page && known > best) {
      best = known;
      after = position;
    }
  }
  return { page: best, after };
}
