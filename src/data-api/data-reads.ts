import {
  type CampaignNeed,
  type CampaignService,
  createCampaignService,
  type ReadAhead,
} from '../campaigns/campaigns.service.ts';
import { createRespondentPages } from '../campaigns/pages/respondent-pages.ts';
import { type ChangesFeed, createChangesFeed } from '../changes/changes.service.ts';
import type { Store } from '../db/store.ts';
import { ResponseCache } from '../http/response-cache.ts';
import { createRemovalsFeed, type RemovalsFeed } from '../removals/removals.service.ts';
import type { Speedups } from '../speedups.ts';

/** What the data API's reads are built from: one speed setting, and the sizes beside it. */
export interface DataReadSettings {
  /** The key cursors are signed with. */
  cursorKey: Buffer;
  /** The response cache's bound; 0 keeps nothing. */
  responseCacheBytes: number;
  speedups: Speedups;
  onCacheLookup?: (hit: boolean) => void;
}

/**
 * Every read a data request makes, built once from one speed setting: the campaign answers, the
 * removals feed and the changes feed, over one response cache and one set of shared reads and
 * remembered page ends. The data API's door (data-api.ts) is its one user.
 */
export interface DataReads {
  campaigns: CampaignService;
  removals: RemovalsFeed;
  changes: ChangesFeed;
  /**
   * Starts the campaign read a route declared it needs, while the request's key is checked; none
   * where read-ahead is off, or on SQLite, whose reads are synchronous: no round trip to overlap.
   */
  readAhead(need: CampaignNeed, campaignId: string): ReadAhead | undefined;
}

export function createDataReads(store: Store, settings: DataReadSettings): DataReads {
  const { speedups, cursorKey } = settings;
  const pages = createRespondentPages(store, { cursorKey, speedups });
  const cache = new ResponseCache(settings.responseCacheBytes, {
    ...(settings.onCacheLookup ? { onLookup: settings.onCacheLookup } : {}),
    speedups,
  });
  const campaigns = createCampaignService(store, { cache, pages, speedups });
  const removals = createRemovalsFeed(store, { cursorKey });
  const changes = createChangesFeed(store, { cursorKey });
  const readAhead = speedups.on('read-ahead') && store.engine === 'postgres';
  return {
    campaigns,
    removals,
    changes,
    readAhead: (need, campaignId) =>
      readAhead ? campaigns.readAhead(need, campaignId) : undefined,
  };
}
