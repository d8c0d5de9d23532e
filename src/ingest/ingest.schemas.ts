import { type Static, Type } from 'typebox';
import { ErrorEnvelope } from '../http/error-responses.ts';

/**
 * The ingest API's contract with a platform (docs/ingesting.md): the records a batch's lines hold
 * and the answer to a batch. Published as openapi/ingest.json, apart from the partners' reference,
 * and the relay's types are generated from it. The records are checked by the import's own code
 * (src/import/), which these describe; the answer is what the service returns.
 */

const RecordId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9._~-]+$',
  description: '1 to 128 characters from A-Z a-z 0-9 . _ ~ -',
});

const Version = Type.Integer({
  minimum: 0,
  description:
    'Raised by the source on every change of the row: a record not newer than the one held is skipped as stale.',
});

const FieldType = Type.Union(
  ['TEXT', 'TEXTAREA', 'EMAIL', 'PHONE', 'NUMBER', 'DATE', 'RADIO', 'SELECT', 'CHECKBOX'].map(
    (type) => Type.Literal(type),
  ),
);

export const CampaignLine = Type.Object(
  {
    type: Type.Literal('campaign'),
    id: RecordId,
    slug: Type.String({ minLength: 1 }),
    title: Type.String({ minLength: 1 }),
    eventDate: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    location: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    fields: Type.Optional(
      Type.Array(
        Type.Object({
          key: Type.String({ minLength: 1, maxLength: 128 }),
          label: Type.String(),
          type: FieldType,
        }),
        {
          description: 'The campaign’s questions in form order; without it, the ones it has stay.',
        },
      ),
    ),
    deleted: Type.Optional(Type.Literal(true, { description: 'Removes the campaign.' })),
  },
  { description: 'A campaign, upserted by id.' },
);

const Answer = Type.Union([
  Type.String(),
  Type.Number(),
  Type.Boolean(),
  Type.Array(Type.String()),
]);

export const RespondentLine = Type.Object(
  {
    type: Type.Literal('respondent'),
    id: RecordId,
    campaignId: RecordId,
    submittedAt: Type.String({ format: 'date-time', description: 'When the RSVP last changed.' }),
    attendanceStatus: Type.Union([Type.Literal('YES'), Type.Literal('NO'), Type.Literal('MAYBE')]),
    answers: Type.Optional(
      Type.Record(Type.String(), Answer, {
        description: 'By field key. ipAddress, token and guestToken are dropped, never kept.',
      }),
    ),
    version: Type.Optional(Version),
    deleted: Type.Optional(Type.Literal(true, { description: 'Removes the respondent.' })),
  },
  { description: 'A respondent, upserted by id.' },
);

export const DeletionLine = Type.Union(
  [
    Type.Object({
      type: Type.Literal('deletion'),
      respondentId: RecordId,
      version: Type.Optional(Version),
    }),
    Type.Object({ type: Type.Literal('deletion'), campaignId: RecordId }),
  ],
  { description: 'A respondent or a campaign removed.' },
);

/** One line of a batch's JSON Lines body. */
export const BatchLine = Type.Union([CampaignLine, RespondentLine, DeletionLine]);
export type BatchLine = Static<typeof BatchLine>;

/** A record named in a batch's answer: its line (`line 3`) and id, never a value. */
const NamedRecord = Type.Object({ line: Type.String(), id: Type.String() });

/** What a batch did: records written by kind, records skipped as stale, and when it committed. */
export const BatchAnswerSchema = Type.Object({
  applied: Type.Object({
    campaigns: Type.Integer(),
    respondents: Type.Integer(),
    deletions: Type.Integer(),
  }),
  stale: Type.Integer({ description: 'Records skipped: not newer than the version held.' }),
  keptErased: Type.Object(
    { count: Type.Integer(), records: Type.Array(NamedRecord) },
    {
      description:
        'Respondent records not applied because an operator erased the person: erase them at the source too, or send their deletion. The first 100.',
    },
  ),
  unknownAnswers: Type.Object(
    {
      count: Type.Integer(),
      records: Type.Array(
        Type.Object({ line: Type.String(), id: Type.String(), fields: Type.Array(Type.String()) }),
      ),
    },
    {
      description:
        'Records that answer questions their campaign does not have: applied, answers kept, named here by field key so the platform can mend its mapping. The first 100.',
    },
  ),
  committedAt: Type.String({ format: 'date-time' }),
});
export type BatchAnswer = Static<typeof BatchAnswerSchema>;

/** The ingest API as an OpenAPI document for platforms (openapi/ingest.json). */
export function ingestDocument(version: string): Record<string, unknown> {
  const refusal = (description: string) => ({
    description,
    content: { 'application/json': { schema: ErrorEnvelope } },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Hadir ingest API',
      version,
      description:
        'How an RSVP platform sends its changes to Hadir (docs/ingesting.md). Not for partners: they read the data API.',
    },
    servers: [{ url: '/ingest/v1' }],
    security: [{ ingestToken: [] }],
    components: {
      securitySchemes: {
        ingestToken: { type: 'http', scheme: 'bearer', description: 'An ingest token, hadir_it_…' },
      },
      schemas: { BatchLine, BatchAnswer: BatchAnswerSchema, ErrorEnvelope },
    },
    paths: {
      '/batches': {
        post: {
          operationId: 'sendBatch',
          summary: 'Apply a batch of records, all or nothing, once per Idempotency-Key',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: true,
              schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
            },
          ],
          requestBody: {
            required: true,
            description: 'JSON Lines: one BatchLine a line, at most 1,000 records and 5 MB.',
            content: { 'application/x-ndjson': { schema: { type: 'string' } } },
          },
          responses: {
            200: {
              description: 'Applied, or replayed (Idempotent-Replayed: true).',
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/BatchAnswer' } },
              },
            },
            400: refusal('No Idempotency-Key, or one that is not 1 to 255 visible characters.'),
            401: refusal('No token, or a malformed, unknown or revoked one.'),
            409: refusal('The key was used in the last 24 hours for another body.'),
            413: refusal('More than 1,000 records or 5 MB.'),
            415: refusal('Not application/x-ndjson, or a Content-Encoding.'),
            422: refusal('Bad records, each named by its line; nothing was written.'),
            429: refusal('Too many batches at once, or refused tokens; Retry-After.'),
            503: refusal('The database cannot be reached; Retry-After.'),
          },
        },
      },
    },
  };
}
