import type { Store } from '../db/store.ts';
import type { Door, Recipient } from '../disclosures/disclosure.ts';
import type { DisclosureRecorder } from '../disclosures/disclosure-log.ts';
import { NO_IDS } from '../disclosures/id-list.ts';
import { recordedInParts } from '../disclosures/recorded-parts.ts';
import { ApiError } from '../errors.ts';
import {
  type CachedResponse,
  type ResponseCache,
  toCachedResponse,
} from '../http/response-cache.ts';
import { toIso } from '../instant.ts';
import type { AuthenticatedKey } from '../keys/keys.service.ts';
import type { Narrowing, PageQuery, Paging } from '../paging/page-query.ts';
import { isRecordId } from '../record-ids.ts';
import { SameWave, SingleFlight } from '../single-flight.ts';
import type { Speedups } from '../speedups.ts';
import {
  type BreakdownRow,
  type CampaignCounts,
  type CampaignRecord,
  type FieldDefinition,
  findCampaign,
  findCampaigns,
  findCampaignsInScope,
  findCampaignWithCounts,
  findFieldDefinitions,
} from './campaigns.repository.ts';
import type { Campaign, Summary } from './campaigns.schemas.ts';
import type { Projection } from './field-projection.ts';
import type { Position, ProjectedRespondent, RespondentPages } from './pages/respondent-pages.ts';
import { ReadableQuestions } from './readable-questions.ts';
import type { RespondentFilter } from './respondent-filter.ts';
import { type MatchedTotals, tallyMatches } from './respondent-matches.ts';
import { responseCacheKey } from './response-cache-key.ts';
import { ScopeProjections } from './scope-projections.ts';

/**
 * What a data route needs of its campaign: its row (`record`), or its row with the breakdown
 * counts of its choice fields (`counts`, a summary's), read in one query.
 */
export type CampaignNeed = 'record' | 'counts';

/**
 * A campaign's read, started while its request's key is still being checked, so the two round
 * trips overlap (the speed device "read-ahead"). Its result is used only once the key is valid.
 */
export type ReadAhead =
  | { need: 'counts'; read: Promise<CampaignCounts | undefined> }
  | { need: 'record'; read: Promise<CampaignRecord | undefined> };

/** A campaign the key may read, with its compiled allow-list. */
export interface CampaignAccess {
  campaign: CampaignRecord;
  projection: Projection;
}

/** A campaign the key may read, with the counts its summary is made of. */
export interface CampaignWithCounts extends CampaignAccess {
  counts: readonly BreakdownRow[];
}

/** What `resolve` gives for each need. */
export interface Resolved {
  record: CampaignAccess;
  counts: CampaignWithCounts;
}

/**
 * The data answers about campaigns. Each answer is the serialised body with its ETag, and what
 * the access log records: the field keys present in at least one returned row, and the row count.
 * A campaign's answers take it resolved (see `resolve`), once per request, by the data API's door.
 */
export interface CampaignService {
  /**
   * Spec, Errors rule 1: the campaign `key` asks for, with its allow-list, or 404 (no such
   * campaign) or 403 (outside the key's scope); from `ahead` when its read was started already.
   */
  resolve<N extends CampaignNeed>(
    key: AuthenticatedKey,
    campaignId: string,
    need: N,
    ahead?: ReadAhead,
  ): Promise<Resolved[N]>;
  /** Starts the read `need` of `campaignId` will take. */
  readAhead(need: CampaignNeed, campaignId: string): ReadAhead;
  /** How a respondents page's query is read (see readPageQuery). */
  readonly paging: Paging<Position>;
  listCampaigns(key: AuthenticatedKey): Promise<CachedResponse>;
  /** The allow-listed fields' definitions, in form order (fields outside it stay unnamed). */
  fields(access: CampaignAccess): Promise<CachedResponse>;
  /** The summary of every respondent, or of those the filters of `narrowing` match. */
  summary(access: CampaignWithCounts, narrowing: Narrowing): Promise<CachedResponse>;
  /** One page of respondents; of those its filters match, when it has any (see RespondentFilter). */
  respondents(access: CampaignAccess, query: PageQuery<Position>): Promise<CachedResponse>;
  /**
   * A whole campaign as the key may read it, for a file: its questions the key may read, in form
   * order, and every respondent in spec order, read a batch at a time (by keyset, so memory stays
   * flat whatever the campaign's size). Each batch is in the disclosure record, for `reader`,
   * before a row of it is handed on.
   */
  everyRespondent(access: CampaignAccess, reader: FileReader): Promise<WholeCampaign>;
}

/** Who a whole campaign is read for, and by which door: what the record says of its rows. */
export interface FileReader {
  recipient: Recipient;
  door: Extract<Door, 'download' | 'delivery'>;
  disclosures: DisclosureRecorder;
  now: () => number;
}

export interface WholeCampaign {
  campaign: CampaignRecord;
  fields: FieldDefinition[];
  respondents(): AsyncGenerator<ProjectedRespondent>;
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

function buildSummary(
  campaign: CampaignRecord,
  projection: Projection,
  rows: readonly BreakdownRow[],
  totals: MatchedTotals = {
    responses: campaign.responses,
    attending: campaign.attending,
    notAttending: campaign.notAttending,
    maybe: campaign.maybe,
  },
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
    totals: { ...totals },
    breakdowns,
  };
}

/**
 * The read side of the data API: scope, allow-lists and caching, on whichever engine the store
 * is; pages come from `pages`. Summaries and pages are cached as bytes under their campaign's
 * version, so a write anywhere (any instance, any tool) is seen by the next request.
 */
export function createCampaignService(
  store: Store,
  options: {
    cache: ResponseCache;
    pages: RespondentPages;
    /** Single flight: reads made at one moment for one campaign or key share one read. */
    speedups: Speedups;
  },
): CampaignService {
  const { cache, pages } = options;
  const scopes = new ScopeProjections(store.db);
  // Read on every request for its version; requests for one campaign at one moment share a read.
  const sharing = options.speedups.on('single-flight');
  const campaignReads = new SingleFlight<CampaignRecord | undefined>(sharing);
  // On PostgreSQL, requests of one turn for different campaigns read them all in one round trip
  // (turn batching); SQLite remembers each campaign's row while nothing changes (see
  // findCampaign), which no batch would improve on.
  const campaignWaves =
    store.engine === 'postgres' && options.speedups.on('turn-batching')
      ? new SameWave<CampaignRecord>(async (ids) => {
          const found = await findCampaigns(store, ids);
          return new Map(found.map((campaign) => [campaign.id, campaign]));
        })
      : undefined;
  const campaignCountsReads = new SingleFlight<CampaignCounts | undefined>(sharing);
  // A key's campaign list, likewise: requests that share a read share its serialised bytes too.
  const scopeReads = new SingleFlight<readonly CampaignRecord[]>(sharing);
  const campaignLists = new WeakMap<readonly CampaignRecord[], CachedResponse>();
  const questions = new ReadableQuestions(store);

  /** Spec, Errors rule 1: 404 for no such (or a deleted) campaign, 403 for one outside the scope. */
  async function access(
    key: AuthenticatedKey,
    campaignId: string,
    read: Promise<CampaignRecord | undefined>,
  ): Promise<CampaignAccess> {
    const [campaign, scope] = await Promise.all([read, scopes.scopeOf(key)]);
    if (!campaign || campaign.deletedAt !== null) {
      throw new ApiError('not_found', `campaign ${campaignId} does not exist`);
    }
    const projection = scope.get(campaignId);
    if (!projection) {
      throw new ApiError('forbidden', `campaign ${campaignId} is not in this key's scope`);
    }
    return { campaign, projection };
  }

  // An id no import could have written (a NUL byte, say, which PostgreSQL cannot even compare)
  // names no campaign: it is not looked for.
  const readCounts = (campaignId: string) =>
    isRecordId(campaignId)
      ? campaignCountsReads.run(campaignId, () => findCampaignWithCounts(store, campaignId))
      : Promise.resolve(undefined);
  const readCampaign = (campaignId: string) =>
    isRecordId(campaignId)
      ? campaignReads.run(campaignId, () =>
          campaignWaves ? campaignWaves.get(campaignId) : findCampaign(store, campaignId),
        )
      : Promise.resolve(undefined);

  async function resolveCounts(
    key: AuthenticatedKey,
    campaignId: string,
    ahead: ReadAhead | undefined,
  ): Promise<CampaignWithCounts> {
    const read = ahead?.need === 'counts' ? ahead.read : readCounts(campaignId);
    const found = await access(
      key,
      campaignId,
      read.then((withCounts) => withCounts?.campaign),
    );
    // Present: access found the campaign in this very read.
    const { counts } = (await read) ?? { counts: [] };
    return { ...found, counts };
  }

  function resolveRecord(
    key: AuthenticatedKey,
    campaignId: string,
    ahead: ReadAhead | undefined,
  ): Promise<CampaignAccess> {
    return access(
      key,
      campaignId,
      ahead?.need === 'record' ? ahead.read : readCampaign(campaignId),
    );
  }

  /** A summary of the respondents `narrow` matches, counted in the store. */
  async function filteredSummary(
    campaign: CampaignRecord,
    projection: Projection,
    narrow: RespondentFilter,
  ): Promise<Summary> {
    const { choiceKeys } = await questions.of(campaign, projection);
    const { totals, counts } = await tallyMatches(store, campaign.id, narrow, choiceKeys);
    return buildSummary(campaign, projection, counts, totals);
  }

  return {
    resolve<N extends CampaignNeed>(
      key: AuthenticatedKey,
      campaignId: string,
      need: N,
      ahead?: ReadAhead,
    ): Promise<Resolved[N]> {
      return (
        need === 'counts'
          ? resolveCounts(key, campaignId, ahead)
          : resolveRecord(key, campaignId, ahead)
      ) as Promise<Resolved[N]>;
    },

    readAhead(need, campaignId) {
      const ahead: ReadAhead =
        need === 'counts'
          ? { need, read: readCounts(campaignId) }
          : { need, read: readCampaign(campaignId) };
      // A request whose key fails never collects its read: its failure is nobody's to report.
      ahead.read.catch(() => {});
      return ahead;
    },

    paging: pages.paging,

    async everyRespondent({ campaign, projection }, reader) {
      const campaignId = campaign.id;
      const fields = await findFieldDefinitions(store, campaignId, projection.fieldKeys);
      const record = (rowIds: typeof NO_IDS) =>
        reader.disclosures.record({
          at: reader.now(),
          recipient: reader.recipient,
          door: reader.door,
          campaignId,
          fields: projection.fieldKeys,
          rowIds,
          removalIds: NO_IDS,
        });
      return {
        campaign,
        fields,
        respondents: () => recordedInParts(pages.every(campaignId, projection), record),
      };
    },

    async fields({ campaign, projection }) {
      const campaignId = campaign.id;
      return cache.get(responseCacheKey(campaign, projection, { answer: 'fields' }), async () => {
        const data = await findFieldDefinitions(store, campaignId, projection.fieldKeys);
        return toCachedResponse({ data }, { fieldKeys: data.map((field) => field.key), rows: 0 });
      });
    },

    async listCampaigns(key) {
      const records = await scopeReads.run(key.id, () => findCampaignsInScope(store, key.id));
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

    async summary({ campaign, projection, counts }, narrowing) {
      const narrow =
        narrowing.length === 0
          ? undefined
          : await questions.filter(campaign, projection, narrowing);
      const cacheKey = responseCacheKey(campaign, projection, { answer: 'summary', narrowing });
      return cache.get(cacheKey, async () => {
        const summary = narrow
          ? await filteredSummary(campaign, projection, narrow)
          : buildSummary(campaign, projection, counts);
        return toCachedResponse(summary, { fieldKeys: Object.keys(summary.breakdowns), rows: 0 });
      });
    },

    async respondents({ campaign, projection }, resolved) {
      // Most pages are not filtered: they take no extra turn.
      const narrow =
        resolved.narrowing.length === 0
          ? undefined
          : await questions.filter(campaign, projection, resolved.narrowing);
      const cacheKey = responseCacheKey(campaign, projection, {
        answer: 'respondents',
        query: resolved,
      });
      return cache.get(cacheKey, () =>
        pages.read(campaign, projection.fieldKeys, resolved, narrow),
      );
    },
  };
}
