import { Type } from 'typebox';
import { RespondentSchema } from '../campaigns/campaigns.schemas.ts';
import { CursorParam, limitParam, PageMetaSchema, PageParam } from '../paging/page-schemas.ts';

export const DEFAULT_CHANGES_LIMIT = 200;

/** GET …/changes: the respondents' paging, `since` meaning applied by Hadir strictly after it. */
export const ChangesQuerySchema = Type.Object(
  {
    page: PageParam,
    limit: limitParam(DEFAULT_CHANGES_LIMIT, 'Changes'),
    cursor: CursorParam,
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Only changes Hadir applied strictly after this instant: the meta.until of your last walk of this feed, never a submittedAt. Without it, the feed starts with every current respondent. Older than the feed vouches for: 410 full_sync_required.',
      }),
    ),
  },
  { additionalProperties: false },
);

const changedAt = Type.String({
  format: 'date-time',
  description:
    "When Hadir applied the change, in UTC: the feed's order, not the respondent's submittedAt.",
});

export const UpsertChangeSchema = Type.Object(
  {
    type: Type.Literal('upsert'),
    id: Type.String({ description: "The respondent's id, as in respondent.id." }),
    changedAt,
    respondent: RespondentSchema,
  },
  {
    title: 'UpsertChange',
    additionalProperties: false,
    description:
      'A respondent added or edited: upsert it by id (R4). Only its latest state is listed.',
  },
);

export const RemovalChangeSchema = Type.Object(
  {
    type: Type.Literal('removal'),
    id: Type.String({
      description: 'The id of the respondent who left: delete it from your copy.',
    }),
    changedAt,
  },
  {
    title: 'RemovalChange',
    additionalProperties: false,
    description: 'A respondent who left (deleted, erased or expired): ids and times only.',
  },
);

export const ChangeSchema = Type.Union([UpsertChangeSchema, RemovalChangeSchema], {
  title: 'Change',
  description: 'One change, told apart by type.',
});

export const ChangesMetaSchema = Type.Object(
  {
    ...PageMetaSchema.properties,
    until: Type.String({
      format: 'date-time',
      description:
        'Every change applied up to this instant is in the feed. After the last page (nextCursor null), keep it and send it as since next time.',
    }),
  },
  { title: 'ChangesMeta', additionalProperties: false },
);

export const ChangesResponse = Type.Object(
  { data: Type.Array(ChangeSchema), meta: ChangesMetaSchema },
  {
    title: 'ChangesPage',
    additionalProperties: false,
    description:
      "One page of a campaign's changes, in the order Hadir applied them (changedAt, then id).",
  },
);
