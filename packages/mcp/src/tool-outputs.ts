import { z } from 'zod';

// What each tool answers, as the schema of its structured content (MCP 2025-06-18's outputSchema):
// a client can check an answer and read it without parsing the text beside it, which holds the
// same JSON. Every answer may carry a `note` saying what was left out to keep it short.

const note = z
  .string()
  .optional()
  .describe('What was left out to keep the answer short, and how to get it.');
const nextCursor = z
  .string()
  .nullable()
  .describe('Pass as cursor for the next part of the answer; null when there is none.');
const question = z.object({ key: z.string(), label: z.string(), type: z.string() });
const counts = z.record(z.string(), z.number().int().min(0));

export const campaignsOutput = {
  campaigns: z.array(
    z.object({
      id: z.string(),
      slug: z.string(),
      title: z.string(),
      eventDate: z.string().nullable(),
      location: z.string().nullable(),
      responseCount: z.number().int().min(0),
      questions: z.array(question).describe('The questions this key may read.'),
    }),
  ),
  note,
};

export const summaryOutput = {
  campaign: z.object({ id: z.string(), slug: z.string(), title: z.string() }),
  totals: counts.describe('responses, attending, notAttending, maybe'),
  breakdowns: z.array(
    z.object({
      field: z.string(),
      label: z.string(),
      counts: counts.describe('Guests by answer, most given first.'),
    }),
  ),
  note,
};

export const fieldsOutput = {
  campaignId: z.string(),
  fields: z.array(question.extend({ position: z.number().int() })),
  note,
};

/** A cell of the guests table: an answer (a list for several choices), or null when blank. */
const cell = z.union([z.string(), z.array(z.string()), z.null()]);

export const respondentsOutput = {
  campaignId: z.string(),
  total: z.number().int().min(0),
  columns: z.array(z.string()).describe('id, then the columns asked for, by label.'),
  rows: z.array(z.array(cell)).describe('One row per guest, in the order of columns.'),
  nextCursor,
};

export const countOutput = {
  campaignId: z.string(),
  count: z.number().int().min(0).optional().describe('The guests who match.'),
  counts: counts
    .optional()
    .describe('By attendance (all, YES, NO, MAYBE), or with groupBy by answer.'),
  groupBy: z.string().optional().describe('The question counted by, as labelled.'),
  blank: z.number().int().min(0).optional().describe('With groupBy: those who left it blank.'),
  note,
};

export const removalsOutput = {
  campaignId: z.string(),
  removals: z.array(z.object({ id: z.string(), removedAt: z.string() })),
  until: z.string().describe('Every removal up to this instant is here: pass it as since next.'),
  nextCursor,
};
