import { once } from 'node:events';
import { chmodSync, closeSync, createWriteStream, openSync } from 'node:fs';
import type { FieldDefinition } from '@hadir/client';
import type { MirrorRow } from './mirror.js';

export type ExportFormat = 'csv' | 'jsonl';

/** The spec suggests displaying campaign data in Jakarta time. */
export const DEFAULT_EXPORT_TIME_ZONE = 'Asia/Jakarta';

export interface ExportOptions {
  /**
   * The zone CSV times are written in (an IANA zone, or UTC for the API's own ISO-8601);
   * Asia/Jakarta by default. JSON Lines keep the API's UTC times and add the local one.
   */
  timeZone?: string;
  /** CSV headers: the questions' labels (default), or the field keys the API uses. */
  headers?: 'labels' | 'keys';
  /** The fields' definitions, in form order: the CSV's columns and their labels. */
  fields?: readonly FieldDefinition[];
  /** Adds the campaignId and removedAt columns, which a person reading the sheet rarely needs. */
  technicalColumns?: boolean;
}

/**
 * Creates (or truncates) `file` readable by its owner only before anything is written to it:
 * an export holds attendees' personal data.
 */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'w', 0o600));
  chmodSync(file, 0o600);
}

/** Rows to export, read afresh each time it is called (CSV reads twice: keys, then rows). */
export type RowSource = () => AsyncIterable<MirrorRow>;

/**
 * Whether a spreadsheet would take a text for a formula, by rule rather than by list: after the
 * compatibility normalisation (NFKC, which makes full-width and small look-alikes the characters
 * they look like), every leading separator (Unicode category Z) and control, format or other
 * invisible character (category C) is skipped, as spreadsheets skip them; a tab or carriage
 * return among them, or `=`, `+`, `-`, the minus sign, `@` or `|` after them, starts a formula
 * (the server's guest-list files guard the same way).
 */
function startsAFormula(text: string): boolean {
  const first = text.charCodeAt(0);
  // Most cells start with a printable ASCII character, which no normalisation turns into another.
  if (first > 0x20 && first < 0x7f) return FORMULA_ASCII.includes(text[0] as string);
  const normal = text.normalize('NFKC');
  const skipped = INVISIBLE_START.exec(normal)?.[0] ?? '';
  return /[\t\r]/.test(skipped) || FORMULA_START.test(normal.slice(skipped.length));
}

const FORMULA_ASCII = '=+-@|';
const INVISIBLE_START = /^[\p{Z}\p{C}]*/u;
const FORMULA_START = /^[=+\-@|\u2212]/;

/** A CSV cell: quoted when needed; a formula's start is defused so spreadsheets never run it. */
export function csvCell(value: string): string {
  const safe = startsAFormula(value) ? `'${value}` : value;
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

/** The CSV's field columns: the defined fields in form order, then any other key seen. */
function fieldColumns(
  seen: ReadonlySet<string>,
  fields: readonly FieldDefinition[],
  headers: 'labels' | 'keys',
): Array<{ key: string; header: string }> {
  const defined = fields.filter((field) => seen.has(field.key));
  const labels = defined.map((field) => field.label);
  const columns = defined.map((field) => ({
    key: field.key,
    // Two questions asked alike are told apart by their keys.
    header:
      headers === 'keys'
        ? field.key
        : labels.indexOf(field.label) === labels.lastIndexOf(field.label)
          ? field.label
          : `${field.label} (${field.key})`,
  }));
  const definedKeys = new Set(defined.map((field) => field.key));
  const others = [...seen].filter((key) => !definedKeys.has(key)).sort();
  return [...columns, ...others.map((key) => ({ key, header: key }))];
}

/**
 * Writes the mirror out, streaming: memory stays flat whatever the row count, and the file is
 * its owner's only. CSV: UTF-8 with a byte-order mark and CRLF lines (Excel reads both); id, the
 * submitted time in the chosen zone, attendance, then one column per field, headed by its label,
 * in form order. JSONL: one respondent object per line. Returns the rows written.
 */
export async function exportRows(
  source: RowSource,
  format: ExportFormat,
  file: string,
  options: ExportOptions = {},
): Promise<number> {
  const zone = options.timeZone ?? DEFAULT_EXPORT_TIME_ZONE;
  const local = zone.toUpperCase() === 'UTC' ? undefined : localTime(zone);
  createPrivateFile(file);
  const out = createWriteStream(file, { encoding: 'utf8', flags: 'r+' });
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
      const columns = fieldColumns(keys, options.fields ?? [], options.headers ?? 'labels');
      const technical = options.technicalColumns === true;
      const header = [
        ...(technical ? ['campaignId'] : []),
        'id',
        local ? `submittedAt (${zone})` : 'submittedAt',
        'attendanceStatus',
        ...(technical ? ['removedAt'] : []),
        ...columns.map((column) => column.header),
      ];
      await write(`\uFEFF${header.map(csvCell).join(',')}\r\n`);
      for await (const row of source()) {
        const cells = [
          ...(technical ? [row.campaignId] : []),
          row.id,
          local ? local(row.submittedAt) : row.submittedAt,
          row.attendanceStatus,
          ...(technical ? [row.removedAt ?? ''] : []),
          ...columns.map((column) => fieldText(row.fields[column.key])),
        ];
        await write(`${cells.map(csvCell).join(',')}\r\n`);
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
