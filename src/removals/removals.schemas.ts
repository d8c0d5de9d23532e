import { Type } from 'typebox';
import { MAX_PAGE, MAX_PAGE_LIMIT, PageMetaSchema } from '../campaigns/campaigns.schemas.ts';

export const DEFAULT_REMOVALS_LIMIT = 200;

/** GET …/removals: the respondents' paging, `since` meaning removed strictly after it. */
export const RemovalsQuerySchema = Type.Object(
  {
    page: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE,
        description: '1-based page number in decimal digits; default 1.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_LIMIT,
        default: DEFAULT_REMOVALS_LIMIT,
        description: 'Removals per page in decimal digits, 1 to 200; default 200.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'meta.nextCursor of the previous page, with the same since and limit; instead of page.',
      }),
    ),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Only removals strictly after this instant (your last removals watermark). Older than the feed vouches for: 410 full_sync_required.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RemovalSchema = Type.Object(
  {
    id: Type.String({
      description: 'The id of the respondent who left: delete it from your copy.',
    }),
    removedAt: Type.String({ format: 'date-time', description: 'When it left, in UTC.' }),
  },
  { title: 'Removal', additionalProperties: false },
);

export const RemovalsMetaSchema = Type.Object(
  {
    ...PageMetaSchema.properties,
    until: Type.String({
      format: 'date-time',
      description:
        'Every removal up to this instant is in the feed. Keep it before a full pass; after the pass, use it as since.',
    }),
  },
  { title: 'RemovalsMeta', additionalProperties: false },
);

export const RemovalsResponse = Type.Object(
  { data: Type.Array(RemovalSchema), meta: RemovalsMetaSchema },
  {
    title: 'RemovalsPage',
    additionalProperties: false,
    description: 'One page of the respondents who left the campaign, oldest removal first.',
  },
);
