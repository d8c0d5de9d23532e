import type { FieldDefinition, HadirClient } from '@hadir/client';

/** How long the questions a key may read are used without asking the data API again. */
export const QUESTIONS_FRESH_MS = 30_000;

/** Campaigns whose questions are remembered; past it the oldest are forgotten. */
const MOST_CAMPAIGNS = 500;

interface Known {
  fields: FieldDefinition[];
  etag: string | undefined;
  checkedAt: number;
}

/**
 * The questions of the campaigns one key may read (labels and types, no answer), remembered for
 * QUESTIONS_FRESH_MS, so that a tool call about guests makes one data request, not two. Past
 * that they are asked for again with their ETag: a `304`, which the rate limit does not count,
 * when nothing changed. The rows themselves are always read fresh, under the key's allow-list.
 */
export class CampaignQuestions {
  readonly #known = new Map<string, Known>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async of(client: HadirClient, campaignId: string): Promise<FieldDefinition[]> {
    const known = this.#known.get(campaignId);
    const now = this.#now();
    if (known && now - known.checkedAt < QUESTIONS_FRESH_MS) return known.fields;
    const answer = await client.fieldsIfChanged(campaignId, known?.etag);
    if (answer === 'unchanged' && known) {
      known.checkedAt = now;
      return known.fields;
    }
    if (answer === 'unchanged') return client.fields(campaignId);
    this.#known.delete(campaignId);
    if (this.#known.size >= MOST_CAMPAIGNS) {
      const oldest = this.#known.keys().next().value;
      if (oldest !== undefined) this.#known.delete(oldest);
    }
    this.#known.set(campaignId, { fields: answer.fields, etag: answer.etag, checkedAt: now });
    return answer.fields;
  }
}
