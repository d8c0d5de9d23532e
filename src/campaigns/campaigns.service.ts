import type { Kysely } from 'kysely';
import type { AttendanceStatus, Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { BodyPool } from '../http/body-pool.ts';
import {
  type CachedResponse,
  type ResponseCache,
  toCachedResponse,
} from '../http/response-cache.ts';
import type { AuthenticatedKey } from '../keys/keys.service.ts';
import { SingleFlight } from '../single-flight.ts';
import {
  type BreakdownRow,
  type CampaignCounts,
  type CampaignRecord,
  countRespondents,
  findCampaign,
  findCampaignsInScope,
  findCampaignWithCounts,
  findEveryNthPosition,
  type Position,
} from './campaigns.repository.ts';
import type { AnswerValue, Projection } from './field-projection.ts';
import { toIso } from './instant.ts';
import type { CursorCodec, CursorReading, PageCursor } from './page-cursor.ts';
import { nearestKnownEnd, type PageContext, PagePositions } from './page-positions.ts';
import { emptyPage, type PageReader, readPageLending } from './page-reader.ts';
import { ScopeProjections } from './scope-projections.ts';

/** Spec, Campaign (list item). */
export interface Campaign {
  id: string;
  slug: string;
  title: string;
  eventDate: string | null;
  location: string | null;
  responseCount: number;
}

/** Spec, Summary. `maybe` is an added counter (spec, Versioning: totals may gain counters). */
export interface Summary {
  campaign: { id: string; slug: string; title: string };
  totals: { responses: number; attending: number; notAttending: number; maybe: number };
  breakdowns: Record<string, Record<string, number>>;
}

/** Spec, Respondent. */
export interface Respondent {
  id: string;
  submittedAt: string;
  attendanceStatus: AttendanceStatus;
  fields: Record<string, AnswerValue>;
}

/** Spec, Page metadata, plus `nextCursor` (an addition within v1: keyset paging that edits cannot skip). */
export interface PageMeta {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
  /** Opaque; pass as `cursor` for the rows after this page. Null on the last page. */
  nextCursor: string | null;
}

export interface RespondentsQuery {
  page: number;
  limit: number;
  sinceMs?: number | undefined;
  /** A client's cursor, as sent: rows strictly after its position; `page` is then the cursor's. */
  cursor?: string;
}

/** The rows a query reads: from a page number, or from a cursor's position. */
interface ResolvedQuery {
  page: number;
  limit: number;
  sinceMs: number | undefined;
  cursor?: PageCursor;
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

export interface ReadOptions {
  /** The campaign's row, already being read (see `readCampaign`). */
  campaign?: Promise<CampaignRecord | undefined>;
  /** For a summary: the campaign with its counts, already being read (see `readCampaignCounts`). */
  campaignCounts?: Promise<CampaignCounts | undefined>;
  /** Runs once access is settled, before the answer is read: it may abandon the request. */
  beforeWork?: () => void;
}

/**
 * Each answer is the serialised body with its ETag, and what the access log records: the field
 * keys present in at least one returned row, and the row count.
 */
export interface CampaignService {
  listCampaigns(key: AuthenticatedKey): Promise<CachedResponse>;
  /**
   * The campaign row, version included: read on every request. A caller may start it early,
   * alongside the key check, and hand it in as `ReadOptions.campaign`.
   */
  readCampaign(campaignId: string): Promise<CampaignRecord | undefined>;
  /** The same with the answer counts a summary needs, in one read; `ReadOptions.campaignCounts`. */
  readCampaignCounts(campaignId: string): Promise<CampaignCounts | undefined>;
  summary(
    key: AuthenticatedKey,
    campaignId: string,
    options?: ReadOptions,
  ): Promise<CachedResponse>;
  respondents(
    key: AuthenticatedKey,
    campaignId: string,
    query: RespondentsQuery,
    options?: ReadOptions,
  ): Promise<CachedResponse>;
}

function toCampaign(record: CampaignRecord): Campaign {
  return {
    id: record.id,
    slug: record.slug,
    title: record.title,
    eventDate: record.eventDate === null ? null : toIso(record.eventDate),
    location: record.location,
    responseCount: record.responses,
  };
}

/**
 * The read side of the data API: scope, allow-lists and paging, on whichever engine `db` is.
 * Summaries and pages are cached as bytes under their campaign's version, so a write anywhere
 * (any instance, any tool) is seen by the next request.
 */
export function createCampaignService(
  db: Kysely<Database>,
  cache: ResponseCache,
  cursors: CursorCodec,
  pageReader?: PageReader,
): CampaignService {
  const bodies = new BodyPool();
  const readPageRows: PageReader =
    pageReader ?? ((request) => readPageLending(db, request, cursors, bodies));
  const scopes = new ScopeProjections(db);
  const positions = new PagePositions();
  // Read on every request for its version; requests for one campaign at one moment share a read.
  const campaignReads = new SingleFlight<CampaignRecord | undefined>();
  // A deep page's start may take one pass over the index; concurrent requests share that pass.
  const pageStarts = new SingleFlight<Position | null | undefined>();

  const campaignCountsReads = new SingleFlight<CampaignCounts | undefined>();
  // A key's campaign list, likewise: requests that share a read share its serialised bytes too.
  const scopeReads = new SingleFlight<readonly CampaignRecord[]>();
  const campaignLists = new WeakMap<readonly CampaignRecord[], CachedResponse>();

  function readCampaign(campaignId: string): Promise<CampaignRecord | undefined> {
    return campaignReads.run(campaignId, () => findCampaign(db, campaignId));
  }

  function readCampaignCounts(campaignId: string): Promise<CampaignCounts | undefined> {
    return campaignCountsReads.run(campaignId, () => findCampaignWithCounts(db, campaignId));
  }

  /** Spec, Errors rule 1: 404 for no such (or a deleted) campaign, 403 for one outside the scope. */
  async function access(
    key: AuthenticatedKey,
    campaignId: string,
    early?: Promise<CampaignRecord | undefined>,
  ): Promise<{ campaign: CampaignRecord; projection: Projection }> {
    const [campaign, scope] = await Promise.all([
      early ?? readCampaign(campaignId),
      scopes.scopeOf(key),
    ]);
    if (!campaign || campaign.deletedAt !== null) {
      throw new ApiError('not_found', `campaign ${campaignId} does not exist`);
    }
    const projection = scope.get(campaignId);
    if (!projection) {
      throw new ApiError('forbidden', `campaign ${campaignId} is not in this key's scope`);
    }
    return { campaign, projection };
  }

  /** Where page `page` starts: after the last row of page - 1, found by keyset from a known end. */
  async function pageStart(
    context: PageContext,
    campaignId: string,
    query: ResolvedQuery,
  ): Promise<Position | null | undefined> {
    if (query.page === 1) return null;
    const known = context.pageEnds.get(query.page - 1);
    if (known) return known;
    const from = nearestKnownEnd(context.pageEnds, query.page - 1);
    const missing = query.page - 1 - from.page;
    const ends = await findEveryNthPosition(
      db,
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
    async listCampaigns(key) {
      const records = await scopeReads.run(key.id, () => findCampaignsInScope(db, key.id));
      // Shared or remembered rows come back as the same array, so their bytes are serialised once.
      let response = campaignLists.get(records);
      if (!response) {
        response = toCachedResponse(
          { data: records.map(toCampaign) },
          { fieldKeys: [], rows: records.length },
        );
        campaignLists.set(records, response);
      }
      return response;
    },

    readCampaign,
    readCampaignCounts,

    async summary(key, campaignId, options = {}) {
      const read = options.campaignCounts ?? readCampaignCounts(campaignId);
      const { campaign, projection } = await access(
        key,
        campaignId,
        read.then((found) => found?.campaign),
      );
      // Present: access found the campaign in this very read.
      const { counts } = (await read) ?? { counts: [] };
      options.beforeWork?.();
      const cacheKey = `summary\u0000${campaignId}\u0000${campaign.version}\u0000${projection.identity}`;
      return cache.get(cacheKey, async () => {
        const summary = buildSummary(campaign, projection, counts);
        return toCachedResponse(summary, { fieldKeys: Object.keys(summary.breakdowns), rows: 0 });
      });
    },

    async respondents(key, campaignId, query, options = {}) {
      const resolved = resolveQuery(campaignId, query);
      const { campaign, projection } = await access(key, campaignId, options.campaign);
      options.beforeWork?.();
      const { cursor } = resolved;
      const place = cursor
        ? `cursor:${cursor.after.submittedAt}\u0000${cursor.after.id}\u0000${cursor.page}`
        : `page:${query.page}`;
      const cacheKey = `respondents\u0000${campaignId}\u0000${campaign.version}\u0000${projection.identity}\u0000${query.sinceMs ?? ''}\u0000${place}\u0000${query.limit}`;
      return cache.get(cacheKey, () => readPage(campaign, projection, resolved));
    },
  };

  /** The query with its cursor checked: 400 for one that is forged or from another query. */
  function resolveQuery(campaignId: string, query: RespondentsQuery): ResolvedQuery {
    const { page, limit, sinceMs } = query;
    if (query.cursor === undefined) return { page, limit, sinceMs };
    const reading = cursors.decode(query.cursor, { campaignId, sinceMs, limit });
    if (reading.kind !== 'valid') throw new ApiError('invalid_parameter', cursorProblem(reading));
    return { page, limit, sinceMs, cursor: reading.cursor };
  }

  function buildSummary(
    campaign: CampaignRecord,
    projection: Projection,
    rows: readonly BreakdownRow[],
  ): Summary {
    const counts = new Map<string, Record<string, number>>();
    for (const row of rows) {
      let breakdown = counts.get(row.fieldKey);
      if (!breakdown) {
        breakdown = {};
        counts.set(row.fieldKey, breakdown);
      }
      if (row.value !== null && row.count !== null) breakdown[row.value] = Number(row.count);
    }
    // In allow-list order, like the fields of a respondent.
    const breakdowns: Record<string, Record<string, number>> = {};
    for (const fieldKey of projection.fieldKeys) {
      const breakdown = counts.get(fieldKey);
      if (breakdown) breakdowns[fieldKey] = breakdown;
    }
    return {
      campaign: { id: campaign.id, slug: campaign.slug, title: campaign.title },
      totals: {
        responses: campaign.responses,
        attending: campaign.attending,
        notAttending: campaign.notAttending,
        maybe: campaign.maybe,
      },
      breakdowns,
    };
  }

  async function readPage(
    campaign: CampaignRecord,
    projection: Projection,
    query: ResolvedQuery,
  ): Promise<CachedResponse> {
    const campaignId = campaign.id;
    const context = positions.context(campaignId, campaign.version, query.sinceMs, query.limit);
    if (context.total === undefined) {
      context.total =
        query.sinceMs === undefined
          ? campaign.responses
          : await countRespondents(db, { campaignId, sinceMs: query.sinceMs });
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
    const { response, end } = await readPageRows({
      campaignId,
      sinceMs: query.sinceMs,
      after,
      limit: query.limit,
      fieldKeys: projection.fieldKeys,
      meta,
    });
    if (end && !query.cursor) positions.remember(context, [[page, end]]);
    return response;
  }
}
