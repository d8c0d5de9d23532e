import { type IdList, idListOf } from './id-list.ts';

/** Rows per part of a file's record: a page of the store's reads of a whole campaign. */
export const PART_ROWS = 500;

/**
 * A file's rows as its writer takes them, each part of `partRows` recorded (`record`) before any
 * row of it is handed on: bytes of a row never leave ahead of its line in the record. The next
 * part is read while the last one's line is written, so the record costs the file no round trip.
 */
export async function* recordedInParts<Row extends { id: string }>(
  rows: AsyncIterable<Row>,
  record: (rowIds: IdList) => Promise<void>,
  partRows = PART_ROWS,
): AsyncGenerator<Row> {
  let ready: { rows: Row[]; recorded: Promise<void> } | undefined;
  let part: Row[] = [];
  const start = (taken: Row[]) => {
    const recorded = record(idListOf(taken.map((row) => row.id)));
    // Awaited below; until then a failure must not count as unhandled.
    recorded.catch(() => {});
    return { rows: taken, recorded };
  };
  for await (const row of rows) {
    part.push(row);
    if (part.length < partRows) continue;
    const next = start(part);
    part = [];
    if (ready) {
      await ready.recorded;
      yield* ready.rows;
    }
    ready = next;
  }
  const last = part.length > 0 ? start(part) : undefined;
  if (ready) {
    await ready.recorded;
    yield* ready.rows;
  }
  if (last) {
    await last.recorded;
    yield* last.rows;
  }
}
