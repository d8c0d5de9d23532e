import type { Writable } from 'node:stream';
import type { ProjectedRespondent } from '../campaigns/pages/respondent-pages.ts';
import { type GuestListSource, readerReady } from './file-source.ts';

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

/**
 * The guest list as Parquet (Snappy): columns named as the data API names them (`id`,
 * `submittedAt` a UTC timestamp, `attendanceStatus`, then each question's key in form order), each
 * answer the text the API serves, so that a warehouse addresses a column by a name that a
 * relabelled question does not change. Written a row group at a time to `out`, waiting for it, so
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
  const text = (name: string) =>
    ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' }) as const;
  const schema = [
    { name: 'root', num_children: 3 + whole.fields.length },
    { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    {
      name: 'submittedAt',
      type: 'INT64',
      converted_type: 'TIMESTAMP_MILLIS',
      repetition_type: 'REQUIRED',
    },
    { ...text('attendanceStatus'), repetition_type: 'REQUIRED' },
    ...whole.fields.map((field) => text(field.key)),
  ];
  const file = new ParquetWriter({ writer: bytes, schema: schema as never, createdBy: 'Hadir' });
  const writeGroup = async (rows: ProjectedRespondent[]) => {
    await file.write({
      columnData: [
        { name: 'id', data: rows.map((row) => row.id) },
        { name: 'submittedAt', data: rows.map((row) => BigInt(row.submittedAtMs)) },
        { name: 'attendanceStatus', data: rows.map((row) => row.attendanceStatus) },
        ...whole.fields.map((field) => ({
          name: field.key,
          data: rows.map((row) => cellText(row.fields[field.key])),
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
