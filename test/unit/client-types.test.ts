import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { HadirEvent, HadirEventType } from '../../packages/client/src/index.ts';
import type { BatchAnswer as RelaysAnswer } from '../../packages/relay/src/index.ts';
import {
  CLIENT_TYPES_FILE,
  clientTypes,
  INGEST_DOCUMENT_FILE,
  ingestDocumentText,
  RELAY_TYPES_FILE,
  relayTypes,
} from '../../scripts/client-types.ts';
import type { BatchAnswer as ServersAnswer } from '../../src/ingest/ingest.schemas.ts';
import type { EVENT_TYPES, EventData } from '../../src/journal/events.ts';

describe("the SDK's types", () => {
  it('are the ones generated from openapi/openapi.json (run npm run openapi after a change)', async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypes());
  });

  it("name the server's events, each with its data, from the document's webhooks", () => {
    expectTypeOf<HadirEventType>().toEqualTypeOf<(typeof EVENT_TYPES)[number]>();
    type Sent<T extends HadirEventType> = Extract<HadirEvent, { type: T }>['data'];
    expectTypeOf<Sent<'respondents.changed'>>().toEqualTypeOf<EventData['respondents.changed']>();
    expectTypeOf<Sent<'respondents.removed'>>().toEqualTypeOf<EventData['respondents.removed']>();
    expectTypeOf<Sent<'campaign.updated'>>().toEqualTypeOf<EventData['campaign.updated']>();
    expectTypeOf<Sent<'campaign.removed'>>().toEqualTypeOf<EventData['campaign.removed']>();
    expectTypeOf<Sent<'key.expiring'>>().toEqualTypeOf<EventData['key.expiring']>();
  });
});

describe("the relay's types", () => {
  it('are the ones generated from openapi/ingest.json, itself from the ingest schemas (npm run openapi)', async () => {
    expect(readFileSync(INGEST_DOCUMENT_FILE, 'utf8')).toBe(await ingestDocumentText());
    expect(readFileSync(RELAY_TYPES_FILE, 'utf8')).toBe(await relayTypes());
  });

  it("take a batch's answer as the server gives it", () => {
    expectTypeOf<RelaysAnswer>().toEqualTypeOf<ServersAnswer>();
  });
});
