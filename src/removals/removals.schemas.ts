import { Type } from 'typebox';
import { CursorParam, limitParam, PageMetaSchema, PageParam } from '../paging/page-schemas.ts';

export const DEFAULT_REMOVALS_LIMIT = 200;

/** GET …/removals: the respondents' paging, `since` meaning removed strictly after it. */
export const RemovalsQuerySchema = Type.Object(
  {
    page: PageParam,
    limit: limitParam(DEFAULT_REMOVALS_LIMIT, 'Removals'),
    cursor: CursorParam,
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
