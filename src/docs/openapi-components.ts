import { isDeepStrictEqual } from 'node:util';
import { MAX_FILTER_VALUE_LENGTH } from '../campaigns/respondent-filter.ts';
import { eventBodySchema } from '../journal/event-schemas.ts';
import { EVENT_TYPES, type EventType, eventTitle } from '../journal/events.ts';

type Json = Record<string, unknown>;
type Operation = { tags?: string[]; responses?: Record<string, Json> };
export type OpenApiDocument = Json & {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Json;
  components?: Json & { schemas?: Record<string, Json>; headers?: Record<string, Json> };
};

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function withoutDescription({ description: _, ...rest }: Json): Json {
  return rest;
}

/**
 * Moves every schema that carries a `title` into `components.schemas` under that title and puts a
 * `$ref` in its place, so clients generated from the document get named types (Campaign, Error, …)
 * instead of one anonymous copy per use. The description stays with the use: an error schema is
 * described differently under each status.
 */
export function nameSchemas(document: OpenApiDocument): void {
  const named = new Map<string, Json>();
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (!isObject(value)) return value;
    const visited = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
    const title = visited.title;
    if (typeof title !== 'string') return visited;
    const seen = named.get(title);
    if (!seen) named.set(title, visited);
    else if (!isDeepStrictEqual(withoutDescription(seen), withoutDescription(visited))) {
      throw new Error(`two different schemas are both titled ${title}`);
    } else if (seen.description !== visited.description) {
      named.set(title, withoutDescription(seen));
    }
    return { $ref: `#/components/schemas/${title}` };
  };
  document.paths = visit(document.paths) as OpenApiDocument['paths'];
  if (document.webhooks) document.webhooks = visit(document.webhooks) as Json;
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...Object.fromEntries(named) },
  };
}

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    required: true,
    description: 'Identifies this request in the service logs; quote it when reporting a problem.',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'Strong validator of this answer: send it back as If-None-Match to get a 304.',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: 'private, no-cache: keep answers only in your own store and revalidate them.',
    schema: { type: 'string' },
  },
  'RateLimit-Limit': {
    description:
      "Requests allowed per minute on this answer's budget (the key's, or the client address's without a valid key).",
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current minute.',
    schema: { type: 'integer' },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the budget is full again.',
    schema: { type: 'integer' },
  },
  'Retry-After': {
    description: 'Seconds to wait before sending the same request again.',
    schema: { type: 'integer' },
  },
};

/** The headers an answer carries, by surface and status. */
function headersOf(tag: string | undefined, status: string): string[] {
  const headers = ['X-Request-Id'];
  if (status === '429' || status === '503') headers.push('Retry-After');
  if (tag !== 'Data') return headers;
  if (status === '200' || status === '304') headers.push('ETag', 'Cache-Control');
  // The budget is applied before the answer is known, so every data answer shows it, except
  // when the store that holds keys or budgets is out.
  if (status !== '503') headers.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  return headers;
}

/**
 * Declares the headers clients rely on (X-Request-Id on every answer, ETag and RateLimit-* on
 * data answers, Retry-After on 429 and 503) once, in `components.headers`.
 */
export function declareHeaders(document: OpenApiDocument): void {
  for (const methods of Object.values(document.paths)) {
    for (const operation of Object.values(methods)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = Object.fromEntries(
          headersOf(operation.tags?.[0], status).map((name) => [
            name,
            { $ref: `#/components/headers/${name}` },
          ]),
        );
      }
    }
  }
  document.components = { ...document.components, headers: HEADERS };
}

/**
 * The notifications Hadir sends, as OpenAPI 3.1 `webhooks`: one per event type, its body the
 * event's schema, with the Standard Webhooks headers that sign it.
 */
export function eventWebhooks(): Json {
  const header = (name: string, description: string) => ({
    in: 'header',
    name,
    required: true,
    description,
    schema: { type: 'string' },
  });
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on${eventTitle(type)}`,
          tags: ['Notifications'],
          summary: EVENT_SUMMARIES[type],
          security: [],
          parameters: [
            header(
              'webhook-id',
              'The message id: the same on every attempt; skip one already taken.',
            ),
            header('webhook-timestamp', 'Unix seconds when this attempt was signed.'),
            header('webhook-signature', "v1, then the HMAC-SHA256 under the endpoint's secret."),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: eventBodySchema(type) } },
          },
          responses: {
            '200': { description: 'Taken: any 2xx ends the retries of this message.' },
            '400': {
              description: 'Refused: the message is retried on the schedule, then given up.',
            },
          },
        },
      },
    ]),
  );
}

const EVENT_SUMMARIES: Record<EventType, string> = {
  'respondents.changed': 'Rows of a campaign were added or changed: read them with since',
  'respondents.removed': 'Respondents left a campaign: delete these ids from your copy',
  'campaign.updated': 'A campaign, or your allow-list in it, changed',
  'campaign.removed': "A campaign was deleted, or left the key's scope",
  'campaign.added': "A campaign entered the key's scope",
  'key.expiring': 'The key expires soon: rotate it',
  'webhook.test': 'A test sent from the portal or the CLI',
};

/**
 * The answers filters (`answers[<fieldKey>]`, `answers[<fieldKey>][contains]`) are validated by
 * the name pattern of their query parameters, which an OpenAPI parameter list cannot show: they
 * are described as the one deep-object parameter `answers`, beside `attendanceStatus`.
 */
export function declareAnswerFilters(document: OpenApiDocument): void {
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path) as Array<Operation & { parameters?: Json[] }>) {
      const parameters = operation.parameters;
      const at = parameters?.findIndex(
        (parameter) => parameter.in === 'query' && parameter.name === 'attendanceStatus',
      );
      if (!parameters || at === undefined || at < 0) continue;
      parameters.splice(at + 1, 0, ANSWERS_PARAMETER);
    }
  }
}

const FILTER_VALUES = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH },
};

const ANSWERS_PARAMETER: Json = {
  name: 'answers',
  in: 'query',
  required: false,
  style: 'deepObject',
  explode: true,
  description: [
    'Only respondents whose answers pass these tests, by field key (an addition within v1):',
    '`answers[menu]=Vegetarian`: the answer equals the value, case ignored; repeated (`answers[menu]=Sate&answers[menu]=Soto`), any of the values.',
    '`answers[catatan][contains]=kacang`: the answer holds the text, case ignored.',
    "A multi-select answer passes when one of its choices does; a blank answer never does. Every test must pass, as must attendanceStatus. At most 20 values in all, each 1 to 100 characters, and 1,500 bytes of field keys and values together (a cursor carries them). A test on a field this key may not read (outside its allow-list, never served, or not in the campaign's form) is refused with 400 invalid_parameter, in the same words whichever it is.",
  ].join(' '),
  schema: {
    type: 'object',
    additionalProperties: {
      oneOf: [
        FILTER_VALUES,
        {
          type: 'object',
          properties: { contains: FILTER_VALUES },
          required: ['contains'],
          additionalProperties: false,
        },
      ],
    },
  },
};
