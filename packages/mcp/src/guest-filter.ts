import type { FieldDefinition, Respondent } from '@hadir/client';
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

/** A guest filter, checked against the questions the key may read. */
export interface GuestFilter {
  statuses: ReadonlySet<string> | undefined;
  tests: ReadonlyArray<{ key: string; passes: (text: string) => boolean }>;
}

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

export function guestFilter(
  input: FilterInput,
  fields: readonly FieldDefinition[],
  campaignId: string,
): GuestFilter {
  const statuses =
    input.attendanceStatus === undefined ? undefined : new Set([input.attendanceStatus].flat());
  const tests = Object.entries(input.answers ?? {}).map(([key, test]) => {
    readableQuestion(key, fields, campaignId);
    if (test.equals !== undefined) {
      const wanted = new Set(test.equals.map((value) => value.trim().toLowerCase()));
      return { key, passes: (text: string) => wanted.has(text.trim().toLowerCase()) };
    }
    const part = (test.contains ?? '').toLowerCase();
    return { key, passes: (text: string) => text.toLowerCase().includes(part) };
  });
  return { statuses, tests };
}

export function passes(row: Respondent, filter: GuestFilter): boolean {
  if (filter.statuses && !filter.statuses.has(row.attendanceStatus)) return false;
  return filter.tests.every(({ key, passes: test }) => {
    const value = row.fields[key] as string | string[] | undefined;
    if (value === undefined) return false;
    return Array.isArray(value) ? value.some(test) : test(value);
  });
}
