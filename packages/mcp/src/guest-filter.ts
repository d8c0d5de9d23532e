import type { FieldDefinition, RespondentFilter } from '@hadir/client';
import { z } from 'zod';
import { ToolProblem } from './problems.ts';

const STATUSES = ['YES', 'NO', 'MAYBE'] as const;
type Status = (typeof STATUSES)[number];

/** The filter arguments list_respondents and count_respondents share. */
export const filterShape = {
  attendanceStatus: z
    .union([z.enum(STATUSES), z.array(z.enum(STATUSES)).min(1)])
    .optional()
    .describe(
      'Only guests with this attendance: YES (coming), NO (not coming) or MAYBE, or a list of them.',
    ),
  answers: z
    .preprocess(
      (value, context) => {
        // JSON may name a question "__proto__"; a record would drop it unseen, and the call
        // would answer unfiltered. It names no question any key reads: refused as such.
        if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
          context.addIssue({
            code: 'custom',
            message: 'answers names no question "__proto__": give questions by their keys',
          });
        }
        return value;
      },
      z.record(
        z.string().min(1),
        z
          .strictObject({
            equals: z
              .array(z.string())
              .min(1)
              .optional()
              .describe('The answer is one of these (case ignored).'),
            contains: z
              .string()
              .min(1)
              .optional()
              .describe('The answer contains this text (case ignored).'),
          })
          .refine((test) => (test.equals === undefined) !== (test.contains === undefined), {
            message: 'give each question either "equals" or "contains"',
          }),
      ),
    )
    .optional()
    .describe(
      'Only guests whose answer to each question named by its key (as list_campaigns shows) passes its test, e.g. {"menu": {"equals": ["Vegetarian"]}} or {"alergi": {"contains": "kacang"}}. A multi-choice answer passes when one of its choices does; a blank answer never does.',
    ),
};

export type FilterInput = {
  attendanceStatus?: Status | Status[] | undefined;
  answers?:
    | Record<string, { equals?: string[] | undefined; contains?: string | undefined }>
    | undefined;
};

export function isFiltering(input: FilterInput): boolean {
  return input.attendanceStatus !== undefined || Object.keys(input.answers ?? {}).length > 0;
}

/**
 * The named question, when the key may read it; otherwise a refusal that names the questions it
 * may read. A key cannot tell from it whether a question it may not read exists, nor anything of
 * its answers: the tools only ever see what the key's allow-list serves.
 */
export function readableQuestion(
  key: string,
  fields: readonly FieldDefinition[],
  campaignId: string,
): FieldDefinition {
  const field = fields.find((candidate) => candidate.key === key);
  if (field) return field;
  const readable = fields.map((candidate) => `${candidate.key} (${candidate.label})`).join(', ');
  throw new ToolProblem(
    `This key reads no question "${key}" in campaign "${campaignId}". ${readable ? `The questions it may read, by key: ${readable}.` : 'It may read none of its questions.'}`,
  );
}

/**
 * The data API's filter for a tool's filter arguments, each question checked first against those
 * the key may read (a refusal that names them helps an agent more than the API's 400); the
 * server does the matching.
 */
export function apiFilter(
  input: FilterInput,
  fields: readonly FieldDefinition[],
  campaignId: string,
): RespondentFilter | undefined {
  if (!isFiltering(input)) return undefined;
  const answers: Record<string, string[] | { contains: string }> = {};
  for (const [key, test] of Object.entries(input.answers ?? {})) {
    readableQuestion(key, fields, campaignId);
    answers[key] = test.equals ?? { contains: test.contains ?? '' };
  }
  return {
    ...(input.attendanceStatus === undefined ? {} : { attendanceStatus: input.attendanceStatus }),
    ...(Object.keys(answers).length > 0 ? { answers } : {}),
  };
}
