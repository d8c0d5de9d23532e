import { type Static, type TSchema, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { Format } from 'typebox/format';
import { ATTENDANCE_STATUSES, FIELD_TYPES } from '../db/schema.ts';
import { parseInstant } from '../instant.ts';
import { MAX_ID_LENGTH } from '../record-ids.ts';

/**
 * The records of a JSON Lines import or ingest batch, described once: what the ingest API
 * publishes (openapi/ingest.json, and the relay's types generated from it), and what each line is
 * checked against as it is read (see lineProblem). The import's own checks (import-records.ts)
 * then word any problem and keep the rules across records (an id used twice, a field key given
 * twice, a respondent of a campaign that does not exist); a record this schema accepts passes
 * them for its shape, which test/unit/record-schemas.property.test.ts holds them to.
 */

// Patterns are compiled with the `u` flag: `\uD800-\uDFFF` matches only an unpaired surrogate.
/** Text both engines store as it is: no NUL (PostgreSQL refuses it), no unpaired surrogate. */
const STORABLE = '^[^\\u0000\\uD800-\\uDFFF]*$';
/** Storable text that is not blank. */
const NOT_BLANK = '^(?=[\\s\\S]*\\S)[^\\u0000\\uD800-\\uDFFF]*$';

const Text = Type.String({ pattern: STORABLE });
const NonBlankText = Type.String({ pattern: NOT_BLANK, description: 'Not blank.' });

// ISO-8601 as the import reads it (parseInstant): RFC 3339 date-times and a few more forms.
Format.Set('date-time', (value) => parseInstant(value) !== undefined);
const Instant = Type.String({
  format: 'date-time',
  description: 'ISO-8601 with Z or an offset, e.g. 2026-11-22T08:00:00+07:00.',
});

const RecordId = Type.String({
  pattern: `^[A-Za-z0-9._~-]{1,${MAX_ID_LENGTH}}$`,
  description: '1 to 128 characters from A-Z a-z 0-9 . _ ~ -',
});

const Version = Type.Union(
  [Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()],
  {
    description:
      'Raised by the source on every change of the row: a record not newer than the one held is skipped as stale.',
  },
);

/** A field key as an operator names it in `--scope ID=key1,key2`: no comma, no control character. */
const FieldKey = Type.String({
  pattern: '^(?=[\\s\\S]*\\S)[^,\\p{Cc}\\uD800-\\uDFFF]{1,128}$',
  description: '1 to 128 characters, not blank, without commas or control characters.',
});

const Field = Type.Object(
  {
    key: FieldKey,
    label: Type.Optional(Type.String({ pattern: STORABLE, description: 'The key when absent.' })),
    type: Type.Union(FIELD_TYPES.map((type) => Type.Literal(type))),
  },
  { additionalProperties: false },
);

const Scalar = Type.Union([Text, Type.Number(), Type.Boolean(), Type.Null()]);
const Answer = Type.Union([Scalar, Type.Array(Scalar)]);

/** Dropped at import, never stored nor served, wherever a record carries them. */
const NeverServed = Type.Optional(
  Type.Union([Text, Type.Null()], { description: 'Dropped: never stored, never served.' }),
);

const Answers = Type.Union(
  [
    Type.Object(
      {
        ipAddress: Type.Optional(Answer),
        token: Type.Optional(Answer),
        guestToken: Type.Optional(Answer),
      },
      { additionalProperties: Answer, propertyNames: { pattern: STORABLE } },
    ),
    Type.Null(),
  ],
  {
    description:
      'By field key: a text, number, boolean or null, or a list of them. ipAddress, token and guestToken are dropped, never kept.',
  },
);

const NotDeleted = Type.Optional(Type.Literal(false));
const Deleted = Type.Literal(true, { description: 'Removes it.' });

export const CampaignLine = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('campaign'),
        id: RecordId,
        slug: NonBlankText,
        title: NonBlankText,
        eventDate: Type.Optional(Type.Union([Instant, Type.Null()])),
        location: Type.Optional(Type.Union([Text, Type.Null()])),
        fields: Type.Optional(
          Type.Array(Field, {
            description:
              'The campaign’s questions in form order, each key once; without it, the ones it has stay.',
          }),
        ),
        deleted: NotDeleted,
      },
      { additionalProperties: false, description: 'A campaign, upserted by id.' },
    ),
    Type.Object(
      { type: Type.Literal('campaign'), id: RecordId, deleted: Deleted },
      { additionalProperties: false, description: 'A campaign removed, with its respondents.' },
    ),
  ],
  { description: 'A campaign, upserted by id, or removed.' },
);

export const RespondentLine = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('respondent'),
        id: RecordId,
        campaignId: RecordId,
        submittedAt: Type.String({
          format: 'date-time',
          description: 'When the RSVP last changed: ISO-8601 with Z or an offset.',
        }),
        attendanceStatus: Type.Union(ATTENDANCE_STATUSES.map((status) => Type.Literal(status))),
        answers: Type.Optional(Answers),
        version: Type.Optional(Version),
        deleted: NotDeleted,
        ipAddress: NeverServed,
        token: NeverServed,
        guestToken: NeverServed,
      },
      { additionalProperties: false, description: 'A respondent, upserted by id.' },
    ),
    Type.Object(
      {
        type: Type.Literal('respondent'),
        id: RecordId,
        deleted: Deleted,
        version: Type.Optional(Version),
      },
      { additionalProperties: false, description: 'A respondent removed.' },
    ),
  ],
  { description: 'A respondent, upserted by id, or removed.' },
);

export const DeletionLine = Type.Union(
  [
    Type.Object(
      { type: Type.Literal('deletion'), respondentId: RecordId, version: Type.Optional(Version) },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal('deletion'), campaignId: RecordId },
      { additionalProperties: false },
    ),
  ],
  { description: 'A respondent or a campaign removed.' },
);

/** One line of a JSON Lines import or batch. */
export const BatchLine = Type.Union([CampaignLine, RespondentLine, DeletionLine]);
export type BatchLine = Static<typeof BatchLine>;

interface LineValidator {
  Check(value: unknown): boolean;
  Errors(value: unknown): Array<{ instancePath: string; message: string }>;
}

/** The variant of BatchLine a line can only be: by its type, and what it names or removes. */
function variantOf(line: Record<string, unknown>): TSchema | undefined {
  const [campaign, campaignRemoved] = CampaignLine.anyOf;
  const [respondent, respondentRemoved] = RespondentLine.anyOf;
  const [byRespondent, byCampaign] = DeletionLine.anyOf;
  switch (line.type) {
    case 'campaign':
      return line.deleted === true ? campaignRemoved : campaign;
    case 'respondent':
      return line.deleted === true ? respondentRemoved : respondent;
    case 'deletion':
      return 'campaignId' in line ? byCampaign : byRespondent;
    default:
      return undefined;
  }
}

const compiled = new Map<TSchema, LineValidator>();

/**
 * Why a parsed line does not match BatchLine, in the schema's words (its path and what fails), or
 * undefined when it does. A line is checked against the one variant it can be, so that what is
 * said is about that variant (a respondent's removal is not told it lacks a campaign's title).
 * Each variant is compiled once, on first use.
 */
export function lineProblem(line: unknown): string | undefined {
  const schema =
    (typeof line === 'object' && line !== null && !Array.isArray(line)
      ? variantOf(line as Record<string, unknown>)
      : undefined) ?? BatchLine;
  let validator = compiled.get(schema);
  if (!validator) {
    validator = Compile(schema) as LineValidator;
    compiled.set(schema, validator);
  }
  if (validator.Check(line)) return undefined;
  const [first] = validator.Errors(line);
  if (!first) return 'does not match the published record schema';
  // A property the variant does not have fails `additionalProperties: false` as "schema is false".
  const what =
    first.message === 'schema is false' ? 'is not a property of this record' : first.message;
  return `does not match the published record schema at ${first.instancePath || '/'}: ${what}`;
}
