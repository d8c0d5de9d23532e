import { type TSchema, Type } from 'typebox';
import { type EventType, eventTitle } from './event-types.ts';

// The events' schemas, apart from events.ts so that a process that only sends or records events
// (the CLI, the workers) loads no schema library: the OpenAPI document and the tests read them.

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

/** A notification's body (Standard Webhooks' `{ type, timestamp, data }`) as a schema. */
export function eventBodySchema(type: EventType) {
  return Type.Object(
    { type: Type.Literal(type), timestamp: Instant, data: EVENT_DATA_SCHEMAS[type] },
    { title: eventTitle(type), additionalProperties: false },
  );
}
