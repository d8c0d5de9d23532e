/**
 * What a notification says: the event types and the `data` of each. Thin by design: ids, counts
 * and times, never an answer, so the key's allow-list stays the only door to personal data.
 */
export const EVENT_TYPES = [
  'respondents.changed',
  'respondents.removed',
  'campaign.updated',
  'campaign.removed',
  'campaign.added',
  'key.expiring',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** What of a campaign changed, for `campaign.updated`. */
export type CampaignChange = 'title' | 'eventDate' | 'location' | 'slug' | 'fields';

/** Each event type's `data`. */
export interface EventData {
  /** One per campaign per committed import. */
  'respondents.changed': {
    campaignId: string;
    /** Rows added or changed. */
    changed: number;
    removed: number;
    /** Pass as `since` to read every row this import added or changed. */
    since: string;
  };
  /** The ids one commit removed, in chunks (see REMOVED_CHUNK_IDS): the removals feed's facts. */
  'respondents.removed': { campaignId: string; removedAt: string; ids: string[] };
  'campaign.updated': { campaignId: string; changed: CampaignChange[] };
  /** Deleted, or no longer in the key's scope. */
  'campaign.removed': { campaignId: string; reason: 'deleted' | 'out_of_scope' };
  /** Newly in the key's scope (added to it, or back from deletion). */
  'campaign.added': { campaignId: string };
  'key.expiring': { keyId: string; expiresAt: string; daysLeft: number };
  'webhook.test': { endpointId: string };
}

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
