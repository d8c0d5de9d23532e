import { type Static, Type } from '@sinclair/typebox';

export const MAX_PAGE_LIMIT = 200;
export const DEFAULT_PAGE_LIMIT = 50;

export const CampaignParams = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      description: 'A campaign id from GET /developer/v1/campaigns.',
    }),
  },
  { additionalProperties: false },
);

export const NoQuery = Type.Object({}, { additionalProperties: false });

/** Spec, GET …/respondents query parameters. Unknown parameters are rejected, not ignored. */
export const RespondentsQuerySchema = Type.Object(
  {
    // No schema default: the handler must tell an explicit page from none, to refuse page with cursor.
    page: Type.Optional(
      Type.Integer({ minimum: 1, description: '1-based page number; default 1.' }),
    ),
    limit: Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      default: DEFAULT_PAGE_LIMIT,
      description: 'Rows per page, 1 to 200.',
    }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'meta.nextCursor of the previous page: the rows strictly after it, in the same order. Instead of page; keep the same since and limit.',
      }),
    ),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Only rows whose submittedAt is strictly after this instant. ISO-8601 date-time with Z or an offset.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RespondentsQueryInput = Static<typeof RespondentsQuerySchema>;
