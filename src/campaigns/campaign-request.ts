import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import type { CachedResponse } from '../http/response-cache.ts';
import { type PageQuery, type Paging, readPageQuery } from '../paging/page-query.ts';
import type { CampaignNeed, Resolved } from './campaigns.service.ts';

/**
 * What a data route about one campaign (`/campaigns/:id/…`) declares: what it needs read of the
 * campaign, and how its query pages, if it does. The data API's door reads the query, then
 * resolves the campaign, before the handler runs (see dataApi).
 */
export interface CampaignRoute {
  need: CampaignNeed;
  paging?: Paging<unknown>;
}

/** The campaign the door resolved for a request, tagged with what its route needed. */
export type ResolvedCampaign = {
  [N in CampaignNeed]: { need: N; access: Resolved[N] };
}[CampaignNeed];

/**
 * Reads the route's paging query (a 400 comes first), then resolves its campaign (403, 404) by
 * `resolve`, for the request's key.
 */
export async function resolveRoute(
  request: FastifyRequest,
  route: CampaignRoute,
  resolve: <N extends CampaignNeed>(campaignId: string, need: N) => Promise<Resolved[N]>,
): Promise<void> {
  const campaignId = (request.params as { id: string }).id;
  request.accessRecord = { ...request.accessRecord, campaignId };
  if (route.paging) {
    request.pageQuery = {
      paging: route.paging,
      query: readPageQuery(campaignId, request.query as object, route.paging),
    };
  }
  const access = await resolve(campaignId, route.need);
  request.campaign = { need: route.need, access } as ResolvedCampaign;
}

/** The campaign the door resolved for this request's route, as the route declared it. */
export function campaignOf<N extends CampaignNeed>(request: FastifyRequest, need: N): Resolved[N] {
  const resolved = request.campaign;
  if (resolved?.need !== need) {
    throw new ApiError(
      'internal_error',
      `route ${request.routeOptions.url} has no ${need} campaign`,
    );
  }
  return resolved.access as Resolved[N];
}

/** The page query the door read for this request with `paging`, typed by it. */
export function pageQueryOf<P>(request: FastifyRequest, paging: Paging<P>): PageQuery<P> {
  const read = request.pageQuery;
  if (read?.paging !== paging) {
    throw new ApiError('internal_error', `route ${request.routeOptions.url} read no page query`);
  }
  return read.query as PageQuery<P>;
}

/**
 * Notes what a campaign's answer served: in the access record its field keys, and its rows where
 * they count (respondents; a removal is an id and a time, no row of anyone's answers); for the
 * disclosure record, who it carries (the door writes it before the answer leaves).
 */
export function recordServed(
  request: FastifyRequest,
  response: CachedResponse,
  counted: { rows: boolean },
): void {
  request.accessRecord = {
    ...request.accessRecord,
    fieldKeys: [...response.fieldKeys],
    ...(counted.rows ? { rows: response.rows } : {}),
  };
  request.disclosed = response.disclosed;
}
