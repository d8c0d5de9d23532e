import type { Static } from 'typebox';
import type { EVENT_DATA_SCHEMAS } from './event-schemas.ts';
import type { EventType } from './event-types.ts';

/**
 * What a notification says: the event types and the `data` of each. Thin by design: ids, counts
 * and times, never an answer, so the key's allow-list stays the only door to personal data.
 */
export { EVENT_TYPES, type EventType, eventTitle, isEventType } from './event-types.ts';

/** What of a campaign changed, for `campaign.updated`. */
export type CampaignChange = EventData['campaign.updated']['changed'][number];

/** Each event type's `data`. */
export type EventData = { [T in EventType]: Static<(typeof EVENT_DATA_SCHEMAS)[T]> };

/** An event as the outbox keeps it, before it is sent. */
export type NewEvent = {
  [T in EventType]: {
    type: T;
    data: EventData[T];
    /** Only for events about one key's chain (a scope change, an expiry, a test). */
    lineageId?: string;
    /** Only for a test: the one endpoint it goes to. */
    endpointId?: string;
  };
}[EventType];

/** The campaign an event is about, if any. */
export function campaignOf(event: { type: EventType; data: unknown }): string | undefined {
  const data = event.data as { campaignId?: unknown };
  return typeof data.campaignId === 'string' ? data.campaignId : undefined;
}

/** At most this many ids in one `respondents.removed`, and a body under MAX_BODY_BYTES. */
export const REMOVED_CHUNK_IDS = 1_000;
export const MAX_BODY_BYTES = 20_000;

/** The body a receiver gets: Standard Webhooks' `{ type, timestamp, data }`. */
export function eventBody(type: EventType, createdAt: number, data: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(new Date(createdAt).toISOString())},"data":${data}}`;
}
