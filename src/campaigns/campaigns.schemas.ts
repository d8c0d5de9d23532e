import { type Static, Type } from 'typebox';
import { CursorParam, limitParam, PageMetaSchema, PageParam } from '../paging/page-schemas.ts';
import {
  ANSWER_PARAMETER_PATTERN,
  MAX_FILTER_VALUE_LENGTH,
  MAX_FILTER_VALUES,
} from './respondent-filter.ts';

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

/** `attendanceStatus`: only respondents with one of these statuses. */
const AttendanceStatusParam = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 20,
    description:
      'Only respondents with this attendance: YES, NO or MAYBE, or a comma list of them (YES,MAYBE).',
  }),
);

/**
 * `answers[<fieldKey>]` and `answers[<fieldKey>][contains]`, by the pattern of their names: a
 * value given once or repeated (any of them).
 */
const answerFilters = {
  patternProperties: {
    [ANSWER_PARAMETER_PATTERN]: Type.Array(
      Type.String({ minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH }),
      { maxItems: MAX_FILTER_VALUES },
    ),
  },
};

/** The filters of a summary: only the matching respondents are counted. */
export const SummaryQuerySchema = Type.Object(
  { attendanceStatus: AttendanceStatusParam },
  { additionalProperties: false, ...answerFilters },
);

/** Spec, GET …/respondents query parameters. Unknown parameters are rejected, not ignored. */
export const RespondentsQuerySchema = Type.Object(
  {
    attendanceStatus: AttendanceStatusParam,
    page: PageParam,
    limit: limitParam(DEFAULT_PAGE_LIMIT, 'Rows'),
    cursor: CursorParam,
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Only rows whose submittedAt is strictly after this instant. ISO-8601 date-time with Z or an offset.',
      }),
    ),
  },
  { additionalProperties: false, ...answerFilters },
);
export type RespondentsQueryInput = Static<typeof RespondentsQuerySchema>;

const Instant = Type.String({ format: 'date-time', description: 'ISO-8601 in UTC.' });

/** Spec, Campaign (list item). */
export const CampaignSchema = Type.Object(
  {
    id: Type.String({ description: 'Use it in the other endpoints.' }),
    slug: Type.String(),
    title: Type.String(),
    eventDate: Type.Union([Instant, Type.Null()]),
    location: Type.Union([Type.String(), Type.Null()]),
    responseCount: Type.Integer({ minimum: 0 }),
  },
  { title: 'Campaign', additionalProperties: false },
);

/** Spec, Campaign (list item). */
export type Campaign = Static<typeof CampaignSchema>;

export const CampaignsResponse = Type.Object(
  { data: Type.Array(CampaignSchema) },
  { additionalProperties: false, description: "The campaigns in the key's scope." },
);

/** Spec, Summary. `totals` may gain counters: clients read the ones they know. */
export const SummaryResponse = Type.Object(
  {
    campaign: Type.Object(
      { id: Type.String(), slug: Type.String(), title: Type.String() },
      { additionalProperties: false },
    ),
    totals: Type.Object(
      {
        responses: Type.Integer({ minimum: 0 }),
        attending: Type.Integer({ minimum: 0 }),
        notAttending: Type.Integer({ minimum: 0 }),
        maybe: Type.Integer({ minimum: 0, description: 'An added counter (spec, Versioning).' }),
      },
      {
        additionalProperties: Type.Integer(),
        description: 'Not subject to the allow-list. New counters may appear.',
      },
    ),
    breakdowns: Type.Record(
      Type.String(),
      Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
      {
        description:
          'Field key to (answer value to count), for allow-listed RADIO and SELECT fields only; {} when none qualifies.',
      },
    ),
  },
  { title: 'Summary', additionalProperties: false, description: 'The campaign summary.' },
);

/** Spec, Summary. `maybe` is an added counter (spec, Versioning: totals may gain counters). */
export type Summary = Static<typeof SummaryResponse>;

/** Spec, Respondent. */
export const RespondentSchema = Type.Object(
  {
    id: Type.String({ description: 'Stable and permanent: the upsert key (R4).' }),
    submittedAt: Type.String({
      format: 'date-time',
      description: 'LAST-MODIFIED time: set at first submission and bumped on every edit (R4).',
    }),
    attendanceStatus: Type.Union([Type.Literal('YES'), Type.Literal('NO'), Type.Literal('MAYBE')], {
      description: 'Always present, whatever the allow-list.',
    }),
    fields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
      description:
        'R1: only allow-listed, answered keys; a key is never null. Multi-select answers are arrays; numbers and booleans arrive as strings. ipAddress, token and guestToken are never present.',
    }),
  },
  { title: 'Respondent', additionalProperties: false },
);

/** Spec, Respondent. */
export type Respondent = Static<typeof RespondentSchema>;

export const RespondentsResponse = Type.Object(
  { data: Type.Array(RespondentSchema), meta: PageMetaSchema },
  {
    title: 'RespondentsPage',
    additionalProperties: false,
    description: 'One page of respondents.',
  },
);

/** An addition within v1: what each allow-listed field asked (Typeform and pretix publish theirs). */
export const FieldDefinitionSchema = Type.Object(
  {
    key: Type.String({ description: 'The key respondents’ fields use.' }),
    label: Type.String({ description: 'The question as the form asked it.' }),
    type: Type.String({
      description:
        'TEXT, TEXTAREA, EMAIL, PHONE, NUMBER, DATE, RADIO, SELECT or CHECKBOX (arrays of strings); others may be added.',
    }),
    position: Type.Integer({ description: 'Its place in the form, ascending.' }),
  },
  { title: 'FieldDefinition', additionalProperties: false },
);

export const FieldsResponse = Type.Object(
  { data: Type.Array(FieldDefinitionSchema) },
  {
    title: 'Fields',
    additionalProperties: false,
    description: "The campaign's fields in the key's allow-list, in form order.",
  },
);
