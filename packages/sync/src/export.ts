import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { MirrorRow } from './mirror.js';

export type ExportFormat = 'csv' | 'jsonl';

export interface ExportOptions {
  /** Adds a column with submittedAt in this IANA time zone (e.g. Asia/Jakarta); times stay UTC. */
  timeZone?: string;
}

/** Rows to export, read afresh each time it is called (CSV reads twice: keys, then rows). */
export type RowSource = () => AsyncIterable<MirrorRow>;

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

/** "2026-11-01 07:00:00" in the zone: sortable, and read as a local time by spreadsheets. */
function localTime(zone: string): (iso: string) => string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('sv-SE', {
      timeZone: zone,
      dateStyle: 'short',
      timeStyle: 'medium',
    });
  } catch {
    throw new Error(`--time-zone takes an IANA zone such as Asia/Jakarta, got '${zone}'`);
  }
  return (iso) => format.format(Date.parse(iso));
}

/**
 * Writes the mirror out, streaming: memory stays flat whatever the row count. CSV: UTF-8 with a
 * byte-order mark and CRLF lines (Excel reads both), one column per field key seen. JSONL: one
 * respondent object per line. Returns the rows written.
 */
export async function exportRows(
  source: RowSource,
  format: ExportFormat,
  file: string,
  options: ExportOptions = {},
): Promise<number> {
  const local = options.timeZone ? localTime(options.timeZone) : undefined;
  const out = createWriteStream(file, { encoding: 'utf8' });
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  let count = 0;
  try {
    if (format === 'jsonl') {
      for await (const row of source()) {
        const line = local ? { ...row, submittedAtLocal: local(row.submittedAt) } : row;
        await write(`${JSON.stringify(line)}\n`);
        count += 1;
      }
    } else {
      const keys = new Set<string>();
      for await (const row of source()) for (const key of Object.keys(row.fields)) keys.add(key);
      const fieldKeys = [...keys].sort();
      const zoneColumn = options.timeZone ? [`submittedAt (${options.timeZone})`] : [];
      await write(
        `\uFEFF${[...FIXED_COLUMNS, ...zoneColumn, ...fieldKeys].map(cell).join(',')}\r\n`,
      );
      for await (const row of source()) {
        const cells = [
          row.campaignId,
          row.id,
          row.submittedAt,
          row.attendanceStatus,
          row.removedAt ?? '',
          ...(local ? [local(row.submittedAt)] : []),
          ...fieldKeys.map((key) => fieldText(row.fields[key])),
        ];
        await write(`${cells.map(cell).join(',')}\r\n`);
        count += 1;
      }
    }
  } finally {
    out.end();
    await once(out, 'finish');
  }
  return count;
}

/** Where each campaign's CSV goes when several are exported: `out.csv` → `out-CAMPAIGN.csv`. */
export function campaignFile(file: string, campaignId: string): string {
  const dot = file.lastIndexOf('.');
  const slash = file.lastIndexOf('/');
  const safeId = campaignId.replace(/[^A-Za-z0-9._-]/g, '_');
  return dot > slash ? `${file.slice(0, dot)}-${safeId}${file.slice(dot)}` : `${file}-${safeId}`;
}
