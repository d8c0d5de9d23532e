import type { FieldDefinition, Respondent } from '@hadir/client';
import { z } from 'zod';
import { shortened } from './answers.ts';
import { readableQuestion } from './guest-filter.ts';

const ROW_COLUMNS = ['submittedAt', 'attendanceStatus'] as const;

export const columnsArg = z
  .array(z.string().min(1))
  .min(1)
  .optional()
  .describe(
    'The columns to show beside id: question keys (as list_campaigns shows them), submittedAt, attendanceStatus. All of them when left out; name only those you need to keep answers short.',
  );

/** Labels by field key; a label two fields share is told apart by its key. */
export function labelsOf(fields: readonly FieldDefinition[]): Map<string, string> {
  const count = new Map<string, number>();
  for (const field of fields) count.set(field.label, (count.get(field.label) ?? 0) + 1);
  return new Map(
    fields.map((field) => [
      field.key,
      (count.get(field.label) ?? 0) > 1 ? `${field.label} (${field.key})` : field.label,
    ]),
  );
}

/**
 * Guests as a table: a header of column names (questions by their labels) and one array per
 * guest, a blank answer as null. Far fewer characters than an object per guest.
 */
export interface GuestTable {
  columns: string[];
  rowOf(row: Respondent, valueLimit?: number): unknown[];
}

export function guestTable(
  selected: readonly string[] | undefined,
  fields: readonly FieldDefinition[],
  campaignId: string,
): GuestTable {
  const labels = labelsOf(fields);
  const chosen = selected ?? [...ROW_COLUMNS, ...fields.map((field) => field.key)];
  for (const name of chosen) {
    if (!(ROW_COLUMNS as readonly string[]).includes(name)) {
      readableQuestion(name, fields, campaignId);
    }
  }
  return {
    columns: ['id', ...chosen.map((name) => labels.get(name) ?? name)],
    rowOf: (row, valueLimit) => [
      row.id,
      ...chosen.map((name) => {
        if (name === 'submittedAt') return row.submittedAt;
        if (name === 'attendanceStatus') return row.attendanceStatus;
        const value = row.fields[name] as string | string[] | undefined;
        return value === undefined ? null : shortened(value, valueLimit);
      }),
    ],
  };
}
