import type { Writable } from 'node:stream';
import type { ProjectedRespondent } from '../campaigns/pages/respondent-pages.ts';
import { type GuestListSource, readerReady } from './file-source.ts';
import { plainNumberOf } from './plain-number.ts';

/**
 * Rows per row group. Each group is encoded in one synchronous step: small enough that the
 * serving thread is not held long when the file is written there, large enough that a reader's
 * column scans stay cheap.
 */
const ROWS_PER_GROUP = 2_000;

type HyparquetWriter = typeof import('hyparquet-writer');
/** Loaded with the first Parquet file a process writes, as ExcelJS is (see loadExcel). */
let loading: Promise<HyparquetWriter> | undefined;
const loadWriter = () => {
  loading ??= import('hyparquet-writer');
  return loading;
};

/** A multi-select answer in one cell, as the other files have it. */
const cellText = (value: string | string[] | undefined) =>
  value === undefined ? null : Array.isArray(value) ? value.join('; ') : value;

type Answer = string | string[] | undefined;

/** A column of the file: its schema element, and its cell for each row's answer. */
interface AnswerColumn {
  element: Record<string, unknown> & { name: string };
  fieldKey: string;
  cell(value: Answer): string | number | null;
}

/**
 * Each question's columns: its key, as text; or, for a NUMBER question, as a DOUBLE (its plain
 * numbers, so a warehouse sums them without a cast) and beside it `<key>__text`, the answers that
 * are not plain numbers as typed ("dua"), so nothing typed is lost. A name another question
 * already has gets underscores added until it is free.
 */
function answerColumns(fields: GuestListSource['fields']): AnswerColumn[] {
  const taken = new Set(['id', 'submittedAt', 'attendanceStatus', ...fields.map((f) => f.key)]);
  const free = (name: string) => {
    let candidate = name;
    while (taken.has(candidate)) candidate = `${candidate}_`;
    taken.add(candidate);
    return candidate;
  };
  const text = (name: string) =>
    ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' }) as const;
  return fields.flatMap((field): AnswerColumn[] => {
    if (field.type !== 'NUMBER') {
      return [{ element: text(field.key), fieldKey: field.key, cell: cellText }];
    }
    return [
      {
        element: { name: field.key, type: 'DOUBLE', repetition_type: 'OPTIONAL' },
        fieldKey: field.key,
        cell: (value) => plainNumberOf(value) ?? null,
      },
      {
        element: text(free(`${field.key}__text`)),
        fieldKey: field.key,
        cell: (value) => (plainNumberOf(value) === undefined ? cellText(value) : null),
      },
    ];
  });
}

/**
 * The guest list as Parquet (Snappy): columns named as the data API names them (`id`,
 * `submittedAt` a timestamp adjusted to UTC, `attendanceStatus`, then each question's key in form
 * order), each answer the text the API serves but a NUMBER question's plain numbers (see
 * answerColumns), so that a warehouse addresses a column by a name that a relabelled question does
 * not change, and sums without a cast. Written a row group at a time to `out`, waiting for it, so
 * memory holds one group whatever the campaign's size. Resolves with the rows written.
 */
export async function writeParquet(
  whole: GuestListSource,
  out: Writable,
  written: (rows: number) => void = () => {},
): Promise<number> {
  const { ByteWriter, ParquetWriter } = await loadWriter();
  const bytes = new ByteWriter();
  const drain = async () => {
    if (bytes.index > 0) {
      out.write(Buffer.from(bytes.buffer.slice(0, bytes.index)));
      bytes.index = 0;
    }
    await readerReady(out);
  };
  (bytes as { flush?: () => Promise<void> }).flush = drain;
  const answers = answerColumns(whole.fields);
  const schema = [
    { name: 'root', num_children: 3 + answers.length },
    { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    {
      name: 'submittedAt',
      type: 'INT64',
      // UTC instants: readers take them as TIMESTAMP WITH TIME ZONE.
      logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      repetition_type: 'REQUIRED',
    },
    {
      name: 'attendanceStatus',
      type: 'BYTE_ARRAY',
      converted_type: 'UTF8',
      repetition_type: 'REQUIRED',
    },
    ...answers.map((column) => column.element),
  ];
  const file = new ParquetWriter({ writer: bytes, schema: schema as never, createdBy: 'Hadir' });
  const writeGroup = async (rows: ProjectedRespondent[]) => {
    await file.write({
      columnData: [
        { name: 'id', data: rows.map((row) => row.id) },
        { name: 'submittedAt', data: rows.map((row) => BigInt(row.submittedAtMs)) },
        { name: 'attendanceStatus', data: rows.map((row) => row.attendanceStatus) },
        ...answers.map((column) => ({
          name: column.element.name,
          data: rows.map((row) => column.cell(row.fields[column.fieldKey])),
        })),
      ],
      rowGroupSize: ROWS_PER_GROUP,
    });
  };
  let group: ProjectedRespondent[] = [];
  let rows = 0;
  for await (const row of whole.respondents()) {
    group.push(row);
    rows += 1;
    if (group.length === ROWS_PER_GROUP) {
      await writeGroup(group);
      group = [];
      written(rows);
    }
  }
  if (group.length > 0) await writeGroup(group);
  await file.finish();
  await drain();
  written(rows);
  return rows;
}
