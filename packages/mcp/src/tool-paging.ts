import { HadirApiError, type RespondentFilter } from '@hadir/client';
import {
  type DataPageQuery,
  decodePageToken,
  encodePageToken,
  type PagePosition,
} from './page-token.ts';
import { ToolProblem } from './problems.ts';

/** Where a cursor an agent passed back continues, or a problem saying it is not one of ours. */
export function positionOf(cursor: string | undefined, tool: string): PagePosition | undefined {
  if (cursor === undefined) return undefined;
  const position = decodePageToken(cursor);
  if (!position) {
    throw new ToolProblem(
      `That cursor is not one ${tool} gave: pass nextCursor exactly as it came, or leave cursor out to start from the first page.`,
    );
  }
  return position;
}

/** The data API's refusal of a cursor (it checks its own), said as this server's. */
export async function cursorChecked<T>(tool: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (
      error instanceof HadirApiError &&
      error.status === 400 &&
      error.message.includes("'cursor'")
    ) {
      if (error.message.includes('was issued with another')) {
        throw new ToolProblem(
          'That cursor continues a listing with other filters: call again with the same attendanceStatus and answers it came with (or with none: it keeps them), or leave cursor out to start again.',
        );
      }
      throw new ToolProblem(
        `That cursor is not one ${tool} gave for this campaign: pass nextCursor exactly as it came, or leave cursor out to start from the first page.`,
      );
    }
    throw error;
  }
}

/** The data API page a position names, or the first page of a listing. */
export function pageQuery(
  position: PagePosition | undefined,
  since: string | undefined,
  limit: number,
  filter?: RespondentFilter,
): DataPageQuery {
  // A filter sent beside a cursor is checked by the data API against the one it carries.
  if (position?.kind === 'next_page')
    return { cursor: position.cursor, ...(filter ? { filter } : {}) };
  if (position?.kind === 'rest_of_page') return position.page;
  return { limit, ...(since === undefined ? {} : { since }), ...(filter ? { filter } : {}) };
}

/**
 * The cursor to show for what follows an answer: the rest of its data page after `lastShown`,
 * else the data API's next page, else none.
 */
export function nextToken(
  query: DataPageQuery,
  nextCursor: string | null,
  lastShown: { at: string; id: string } | undefined,
): string | null {
  if (lastShown) {
    return encodePageToken({ kind: 'rest_of_page', page: query, after: lastShown });
  }
  return nextCursor === null ? null : encodePageToken({ kind: 'next_page', cursor: nextCursor });
}

/**
 * The rows of a data page still to show: all of them, or those after the row a partial answer
 * ended on. That row is found by id; should it have moved away meanwhile (edited or removed),
 * the rows after its place in (time, id) order.
 */
export function rest<Row extends { id: string }>(
  rows: readonly Row[],
  position: PagePosition | undefined,
  timeOf: (row: Row) => string,
): readonly Row[] {
  if (position?.kind !== 'rest_of_page') return rows;
  const { after } = position;
  const index = rows.findIndex((row) => row.id === after.id);
  if (index >= 0) return rows.slice(index + 1);
  return rows.filter(
    (row) => timeOf(row) > after.at || (timeOf(row) === after.at && row.id > after.id),
  );
}
