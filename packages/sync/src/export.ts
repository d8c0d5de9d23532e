import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { MirrorRow } from './mirror.js';

export type ExportFormat = 'csv' | 'jsonl';

const FIXED_COLUMNS = ['campaignId', 'id', 'submittedAt', 'attendanceStatus', 'removedAt'] as const;

/** A CSV cell: quoted when needed; a leading =, +, - or @ is defused so spreadsheets never run it. */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The served value as one cell: multi-select answers joined with "; ". */
function fieldText(value: string | string[] | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join('; ') : value;
}

/**
 * Writes the mirror out. CSV: UTF-8 with a byte-order mark and CRLF lines (Excel reads both), one
 * column per field key seen. JSONL: one respondent object per line.
 */
export async function exportRows(
  rows: MirrorRow[],
  format: ExportFormat,
  file: string,
): Promise<number> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  if (format === 'jsonl') {
    for (const row of rows) await write(`${JSON.stringify(row)}\n`);
  } else {
    const fieldKeys = [...new Set(rows.flatMap((row) => Object.keys(row.fields)))].sort();
    await write(`\uFEFF${[...FIXED_COLUMNS, ...fieldKeys].map(cell).join(',')}\r\n`);
    for (const row of rows) {
      const cells = [
        row.campaignId,
        row.id,
        row.submittedAt,
        row.attendanceStatus,
        row.removedAt ?? '',
        ...fieldKeys.map((key) => fieldText(row.fields[key])),
      ];
      await write(`${cells.map(cell).join(',')}\r\n`);
    }
  }
  out.end();
  await once(out, 'finish');
  return rows.length;
}
