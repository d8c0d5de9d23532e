import { type Static, type TSchema, Type } from 'typebox';

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

const Instant = Type.String({ format: 'date-time', description: 'ISO-8601 in UTC.' });
const CampaignId = Type.String({
  description: 'The campaign, as GET /developer/v1/campaigns names it.',
});

/**
 * Each event type's `data`, as a schema: it validates nothing at runtime, but it is what the
 * OpenAPI document publishes as the notifications' bodies (its `webhooks`), what the SDK's event
 * types are generated from, and what the tests check every sent event against.
 */
export const EVENT_DATA_SCHEMAS = {
  'respondents.changed': Type.Object(
    {
      campaignId: CampaignId,
      changed: Type.Integer({ minimum: 0, description: 'Rows added or changed.' }),
      removed: Type.Integer({ minimum: 0, description: 'Rows removed.' }),
      since: Type.String({
        format: 'date-time',
        description: 'Pass as since to read every row this change added or changed.',
      }),
    },
    { additionalProperties: false },
  ),
  'respondents.removed': Type.Object(
    {
      campaignId: CampaignId,
      removedAt: Instant,
      ids: Type.Array(Type.String(), {
        maxItems: 1_000,
        description: 'Respondents who left at removedAt: delete them from your copy.',
      }),
    },
    { additionalProperties: false },
  ),
  'campaign.updated': Type.Object(
    {
      campaignId: CampaignId,
      changed: Type.Array(
        Type.Union([
          Type.Literal('title'),
          Type.Literal('eventDate'),
          Type.Literal('location'),
          Type.Literal('slug'),
          Type.Literal('fields'),
        ]),
        {
          description: 'What of the campaign changed; fields: the allow-list of your key.',
        },
      ),
    },
    { additionalProperties: false },
  ),
  'campaign.removed': Type.Object(
    {
      campaignId: CampaignId,
      reason: Type.Union([Type.Literal('deleted'), Type.Literal('out_of_scope')], {
        description: "Deleted, or no longer in the key's scope.",
      }),
    },
    { additionalProperties: false },
  ),
  'campaign.added': Type.Object(
    { campaignId: CampaignId },
    {
      additionalProperties: false,
      description: "Newly in the key's scope (added to it, or back from deletion).",
    },
  ),
  'key.expiring': Type.Object(
    { keyId: Type.String(), expiresAt: Instant, daysLeft: Type.Integer({ minimum: 0 }) },
    { additionalProperties: false },
  ),
  'webhook.test': Type.Object({ endpointId: Type.String() }, { additionalProperties: false }),
} satisfies Record<EventType, TSchema>;

/** What of a campaign changed, for `campaign.updated`. */
export type CampaignChange = EventData['campaign.updated']['changed'][number];

/** Each event type's `data`. */
export type EventData = { [T in EventType]: Static<(typeof EVENT_DATA_SCHEMAS)[T]> };

/** A notification's body (Standard Webhooks' `{ type, timestamp, data }`) as a schema. */
export function eventBodySchema(type: EventType) {
  return Type.Object(
    { type: Type.Literal(type), timestamp: Instant, data: EVENT_DATA_SCHEMAS[type] },
    { title: eventTitle(type), additionalProperties: false },
  );
}

/** respondents.changed → RespondentsChangedEvent: the name clients' types are generated under. */
export function eventTitle(type: EventType): string {
  return `${type.replace(/(^|\.)(\w)/g, (_, _dot, letter: string) => letter.toUpperCase())}Event`;
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
