import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import type { ProjectedRespondent } from '../campaigns/pages/respondent-pages.ts';
import { JAKARTA_OFFSET_MS } from '../time-units.ts';
import { type GuestListSource, readerReady } from './file-source.ts';
import { writeParquet } from './parquet-file.ts';
import { plainNumberOf } from './plain-number.ts';

/** The files a guest list is written as. */
export type GuestListFormat = 'xlsx' | 'csv' | 'parquet';

/** The words of the file in the holder's language: plain data, handed to a file's thread. */
export interface GuestListHeadings {
  id: string;
  submittedAt: string;
  attendance: string;
  /** Attendance in words in the workbook (the CSV keeps the API's code). */
  attendanceWords: { YES: string; NO: string; MAYBE: string };
  /** The workbook's second sheet: totals, breakdowns, and sums over the attending guests. */
  summary: {
    sheet: string;
    responses: string;
    breakdowns: string;
    sums: string;
  };
}

/**
 * Whether a spreadsheet would take a text for a formula, by rule rather than by list: after the
 * compatibility normalisation (NFKC, which makes full-width and small look-alikes the characters
 * they look like), every leading separator (Unicode category Z) and control, format or other
 * invisible character (category C) is skipped, as spreadsheets skip them; a tab or carriage
 * return among them, or `=`, `+`, `-`, the minus sign, `@` or `|` after them, starts a formula.
 */
export function startsAFormula(text: string): boolean {
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

/**
 * A cell's text made safe to open: one that a spreadsheet would read as a formula gets a leading
 * apostrophe, which shows it as the text it is.
 */
export function neutralised(text: string): string {
  return startsAFormula(text) ? `'${text}` : text;
}

/** A multi-select answer in one cell. */
const cellText = (value: string | string[] | undefined) =>
  value === undefined ? '' : Array.isArray(value) ? value.join('; ') : value;

/** An instant as Jakarta's wall clock: `2026-10-01 11:10`. */
export function jakartaTime(ms: number): string {
  return new Date(ms + JAKARTA_OFFSET_MS).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * Gives the event loop a turn, then waits while `out` holds more than it wants (see readerReady).
 */
async function drained(out: Writable): Promise<void> {
  // A turn of the event loop for the compression and the socket: the rows are read from the
  // store without one, and the workbook's zip takes what it is given without pushing back.
  await new Promise((resolve) => setImmediate(resolve));
  await readerReady(out);
}

/**
 * Rows written between turns of the event loop: every key's requests wait for a turn while a
 * file is written on the serving thread (docs/performance.md, Guest-list downloads).
 */
const ROWS_BETWEEN_DRAINS = 50;

/** How much of the sheet may wait for the zip before the rows stop coming. */
const SHEET_BYTES_IN_FLIGHT = 1024 * 1024;

/** The stream inside ExcelJS (4.4) that takes a sheet's XML on to the zip. */
interface SheetPipe {
  _writableState?: { length: number };
  _readableState?: { length: number };
}

/**
 * Waits while more than SHEET_BYTES_IN_FLIGHT of the sheet's XML waits for the zip. ExcelJS's
 * streaming writer hands each row on without heeding the stream it writes to, so without this a
 * large campaign would sit in memory whole while the zip compresses it. Should a later ExcelJS
 * hold its sheet otherwise, nothing is waited for here (the bench's memory row would show it).
 */
async function sheetDrained(sheet: ExcelJS.Worksheet): Promise<void> {
  const pipe = (sheet as unknown as { stream?: { pipes?: SheetPipe[] } }).stream?.pipes?.[0];
  const inFlight = () => (pipe?._writableState?.length ?? 0) + (pipe?._readableState?.length ?? 0);
  // Looked at again every few ms: the stream's own 'drain' comes only after a write it refused,
  // which ExcelJS never notices.
  while (pipe && inFlight() > SHEET_BYTES_IN_FLIGHT) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function* headerRow(whole: GuestListSource, headings: GuestListHeadings) {
  yield headings.id;
  yield headings.submittedAt;
  yield headings.attendance;
  for (const field of whole.fields) yield field.label;
}

function answersOf(whole: GuestListSource, row: ProjectedRespondent): string[] {
  return whole.fields.map((field) => cellText(row.fields[field.key]));
}

const csvCell = (text: string) => {
  const safe = neutralised(text);
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
};

/**
 * The guest list as CSV: UTF-8 with a byte-order mark (so Excel reads Indonesian names right),
 * CRLF line ends, every cell neutralised. `written` hears the count as it grows.
 * Resolves with the rows written.
 */
export async function writeCsv(
  whole: GuestListSource,
  headings: GuestListHeadings,
  out: Writable,
  written: (rows: number) => void = () => {},
): Promise<number> {
  const line = (cells: Iterable<string>) => `${[...cells].map(csvCell).join(',')}\r\n`;
  out.write(`\uFEFF${line(headerRow(whole, headings))}`);
  let rows = 0;
  for await (const row of whole.respondents()) {
    out.write(
      line([
        row.id,
        jakartaTime(row.submittedAtMs),
        row.attendanceStatus,
        ...answersOf(whole, row),
      ]),
    );
    rows += 1;
    written(rows);
    if (rows % ROWS_BETWEEN_DRAINS === 0) await drained(out);
  }
  return rows;
}

/** A worksheet's name: at most 31 characters, none of those Excel refuses. */
const sheetName = (title: string) =>
  title
    .replace(/[[\]:*?/\\]/g, ' ')
    .slice(0, 31)
    .trim() || 'Guests';

/**
 * ExcelJS, loaded on the first workbook a process writes: it takes a server several megabytes of
 * heap that every collection would otherwise go through (docs/performance.md, Memory), for a
 * download that most processes never serve.
 */
let excelLoading: Promise<{ default: typeof ExcelJS }> | undefined;
function loadExcel(): Promise<{ default: typeof ExcelJS }> {
  excelLoading ??= import('exceljs');
  return excelLoading;
}

/**
 * The guest list as an Excel workbook, written as a stream (ExcelJS's streaming writer): a frozen
 * header row with a filter, times as Excel times on Jakarta's clock, attendance in words, a plain
 * number to a NUMBER question as a number, and every other answer a text cell, exactly as the API
 * serves it. A text cell is never read as a formula, so an answer such as a phone number (`+62…`)
 * keeps its look rather than gaining the CSV's apostrophe. A second sheet sums it up. Resolves
 * with the rows written.
 */
export async function writeXlsx(
  whole: GuestListSource,
  headings: GuestListHeadings,
  out: Writable,
  written: (rows: number) => void = () => {},
): Promise<number> {
  // The zip ends the stream it writes to; `out` stays open for its owner, as with the CSV.
  const zipped = new PassThrough();
  zipped.pipe(out, { end: false });
  const zipEnded = once(zipped, 'end');
  const { default: excel } = await loadExcel();
  const workbook = new excel.stream.xlsx.WorkbookWriter({
    stream: zipped,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet(sheetName(whole.campaign.title), {
    views: [{ state: 'frozen', ySplit: 1 }],
  });
  const columns = 3 + whole.fields.length;
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns } };
  const tally = new Tally(whole.fields);
  const cellsOf = (row: ProjectedRespondent) => [
    row.id,
    // Excel times have no zone: the cell holds Jakarta's wall clock, as the heading says.
    new Date(row.submittedAtMs + JAKARTA_OFFSET_MS),
    wordsOf(headings, row.attendanceStatus),
    ...whole.fields.map((field) => workbookCell(field.type, row.fields[field.key])),
  ];
  // A sheet's columns come before its rows: they are sized to the heading and the first rows.
  const source = whole.respondents();
  const first: ProjectedRespondent[] = [];
  for (let next = await source.next(); ; next = await source.next()) {
    if (next.done) break;
    first.push(next.value);
    if (first.length === ROWS_SIZING_COLUMNS) break;
  }
  const heading = [...headerRow(whole, headings)];
  sheet.columns = columnWidths(heading, first.map(cellsOf)).map((width, index) =>
    index === 1 ? { width, style: { numFmt: 'yyyy-mm-dd hh:mm' } } : { width },
  );
  const header = sheet.addRow(heading);
  header.font = { bold: true };
  header.commit();
  let rows = 0;
  const rest = async function* () {
    yield* first;
    first.length = 0;
    yield* source;
  };
  try {
    for await (const row of rest()) {
      tally.add(row);
      sheet.addRow(cellsOf(row)).commit();
      rows += 1;
      written(rows);
      if (rows % ROWS_BETWEEN_DRAINS === 0) {
        await sheetDrained(sheet);
        await drained(out);
      }
    }
  } finally {
    // Ends the read when the writing stopped early (the reader went away, a write failed).
    await source.return(undefined);
  }
  sheet.commit();
  writeSummary(workbook.addWorksheet(headings.summary.sheet), tally, headings);
  await workbook.commit();
  await zipEnded;
  return rows;
}

/** The rows read before the sheet's columns are sized. */
const ROWS_SIZING_COLUMNS = 200;

/** Each column's width: its longest text among the heading and the rows, within 10 to 50. */
function columnWidths(heading: string[], rows: Array<Array<string | number | Date>>): number[] {
  return heading.map((title, column) => {
    let longest = title.length;
    for (const row of rows) {
      const value = row[column];
      const length = value instanceof Date ? 16 : String(value ?? '').length;
      if (length > longest) longest = length;
    }
    return Math.min(50, Math.max(10, longest + 2));
  });
}

/** An attendance status in the holder's words (the code itself, should another appear). */
function wordsOf(headings: GuestListHeadings, status: string): string {
  return headings.attendanceWords[status as keyof GuestListHeadings['attendanceWords']] ?? status;
}

/**
 * An answer's cell: a plain number to a NUMBER question is a number, so the column adds up;
 * anything else is text exactly as typed (a text cell is never read as a formula).
 */
function workbookCell(type: string, value: string | string[] | undefined): string | number {
  const number = type === 'NUMBER' ? plainNumberOf(value) : undefined;
  return number ?? cellText(value);
}

/** Questions counted by their answers: one answer each. */
const SINGLE_CHOICE = new Set(['RADIO', 'SELECT']);

/** What the summary sheet shows, counted as the rows go by. */
class Tally {
  readonly statuses = { YES: 0, NO: 0, MAYBE: 0 };
  readonly choices: Array<{ label: string; key: string; counts: Map<string, number> }>;
  readonly sums: Array<{ label: string; key: string; sum: number }>;

  constructor(fields: GuestListSource['fields']) {
    this.choices = fields
      .filter((field) => SINGLE_CHOICE.has(field.type))
      .map((field) => ({ label: field.label, key: field.key, counts: new Map() }));
    this.sums = fields
      .filter((field) => field.type === 'NUMBER')
      .map((field) => ({ label: field.label, key: field.key, sum: 0 }));
  }

  add(row: ProjectedRespondent): void {
    const status = row.attendanceStatus as keyof Tally['statuses'];
    if (status in this.statuses) this.statuses[status] += 1;
    for (const { key, counts } of this.choices) {
      const value = row.fields[key];
      if (typeof value === 'string') counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    if (row.attendanceStatus !== 'YES') return;
    for (const entry of this.sums) {
      const value = row.fields[entry.key];
      entry.sum += plainNumberOf(value) ?? 0;
    }
  }
}

/** The second sheet: the totals, each single-choice question's answers counted, the sums. */
function writeSummary(sheet: ExcelJS.Worksheet, tally: Tally, headings: GuestListHeadings): void {
  sheet.columns = [{ width: 40 }, { width: 14 }];
  const title = (text: string) => {
    const row = sheet.addRow([text]);
    row.font = { bold: true };
    row.commit();
  };
  const line = (label: string, value: number) => sheet.addRow([label, value]).commit();
  const { YES, NO, MAYBE } = tally.statuses;
  line(headings.summary.responses, YES + NO + MAYBE);
  line(headings.attendanceWords.YES, YES);
  line(headings.attendanceWords.NO, NO);
  line(headings.attendanceWords.MAYBE, MAYBE);
  for (const { label, counts } of tally.choices) {
    sheet.addRow([]).commit();
    title(`${headings.summary.breakdowns}: ${label}`);
    for (const [answer, count] of [...counts].sort(([, a], [, b]) => b - a)) {
      line(neutralised(answer), count);
    }
  }
  if (tally.sums.length > 0) {
    sheet.addRow([]).commit();
    title(headings.summary.sums);
    for (const { label, sum } of tally.sums) line(label, sum);
  }
  sheet.commit();
}

/** The guest list in `format`, written to `out` from `whole`. Resolves with the rows written. */
export function writeGuestList(
  format: GuestListFormat,
  whole: GuestListSource,
  headings: GuestListHeadings,
  out: Writable,
  written: (rows: number) => void = () => {},
): Promise<number> {
  switch (format) {
    case 'xlsx':
      return writeXlsx(whole, headings, out, written);
    case 'csv':
      return writeCsv(whole, headings, out, written);
    case 'parquet':
      return writeParquet(whole, out, written);
  }
}
