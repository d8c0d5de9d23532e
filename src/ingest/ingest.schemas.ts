import { type Static, Type } from 'typebox';
import { ErrorEnvelope } from '../http/error-responses.ts';
import { BatchLine } from '../import/record-schemas.ts';

/**
 * The ingest API's contract with a platform (docs/ingesting.md): the records a batch's lines hold
 * (described once, in src/import/record-schemas.ts, and checked against as each line is read) and
 * the answer to a batch. Published as openapi/ingest.json, apart from the partners' reference,
 * and the relay's types are generated from it.
 */

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
