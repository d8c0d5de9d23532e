import { LRUCache } from 'lru-cache';
import type { Store } from '../db/store.ts';
import type { Narrowing } from '../paging/page-query.ts';
import type { CampaignRecord } from './campaigns.repository.ts';
import { findFieldDefinitions } from './campaigns.repository.ts';
import type { Projection } from './field-projection.ts';
import { filterOf, type RespondentFilter } from './respondent-filter.ts';

/**
 * The questions of a campaign's form a key may read, by campaign version and allow-list: what a
 * filter may name, and which of them a filtered summary breaks down.
 */
export class ReadableQuestions {
  readonly #store: Store;
  readonly #known = new LRUCache<
    string,
    { keys: ReadonlySet<string>; choiceKeys: readonly string[] }
  >({ max: 1_000 });

  constructor(store: Store) {
    this.#store = store;
  }

  async of(campaign: CampaignRecord, projection: Projection) {
    const cacheKey = `${campaign.id}\u0000${campaign.version}\u0000${projection.identity}`;
    let known = this.#known.get(cacheKey);
    if (!known) {
      const fields = await findFieldDefinitions(this.#store, campaign.id, projection.fieldKeys);
      known = {
        keys: new Set(fields.map((field) => field.key)),
        choiceKeys: fields
          .filter((field) => field.type === 'RADIO' || field.type === 'SELECT')
          .map((field) => field.key),
      };
      this.#known.set(cacheKey, known);
    }
    return known;
  }

  /** The filter `narrowing` asks for, checked against these questions; undefined for none. */
  async filter(
    campaign: CampaignRecord,
    projection: Projection,
    narrowing: Narrowing,
  ): Promise<RespondentFilter | undefined> {
    if (narrowing.length === 0) return undefined;
    return filterOf(narrowing, (await this.of(campaign, projection)).keys);
  }
}
