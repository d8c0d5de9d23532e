import type { Narrowing, PageQuery } from '../paging/page-query.ts';
import type { Projection } from './field-projection.ts';
import type { Position } from './pages/respondent-pages.ts';

/** Which answer of a campaign is cached, with the request's whole typed query where it has one. */
export type CachedAnswer =
  | { answer: 'fields' }
  | { answer: 'summary'; narrowing: Narrowing }
  | { answer: 'respondents'; query: PageQuery<Position> };

/**
 * The response cache's key of an answer: the campaign at its version, what the key may read, and
 * the request's typed query, whole. Never assembled field by field: a field added to a query
 * reaches the key with nothing to remember, so two requests share a cached body only when all
 * they asked is equal (see response-cache.ts).
 */
export function responseCacheKey(
  campaign: { id: string; version: number },
  projection: Pick<Projection, 'identity'>,
  asked: CachedAnswer,
): string {
  return JSON.stringify([campaign.id, campaign.version, projection.identity, asked]);
}
