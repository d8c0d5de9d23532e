// The entry of a page thread (see page-readers.ts): it serialises the pages the main thread asks
// for, reading their rows through its own connection to a SQLite file, or from the lines the main
// thread read from PostgreSQL and sent along.
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../db/connect.ts';
import { BodyPool } from '../http/body-pool.ts';
import { CursorCodec } from './page-cursor.ts';
import { type PageRequest, readPageHere, writePage } from './page-reader.ts';

/**
 * What a thread is started with: the SQLite file it reads, unless its pages come with their
 * lines, and the key its pages' cursors are signed with.
 */
export interface PageThreadData {
  sqliteUrl: string | undefined;
  cursorKey: Uint8Array;
}

/**
 * A page to serialise (from `lines` when given, else read here), or a lent body's buffer coming
 * back once the main thread sent it.
 */
export type ReaderMessage =
  | { id: number; request: PageRequest; lines?: string[] }
  | { giveBack: ArrayBuffer };

const { sqliteUrl, cursorKey } = workerData as PageThreadData;
const store = sqliteUrl === undefined ? undefined : openStore(sqliteUrl);
const bodies = new BodyPool();
const cursors = new CursorCodec(Buffer.from(cursorKey));

async function pageOf(request: PageRequest, lines: string[] | undefined) {
  if (lines) return writePage(lines, request, cursors, bodies);
  if (!store) throw new Error('a page thread without a store was sent a page without its lines');
  return readPageHere(store.db, request, cursors, bodies);
}

parentPort?.on('message', async (message: ReaderMessage) => {
  if ('giveBack' in message) {
    bodies.giveBack(message.giveBack);
    return;
  }
  const { id, request, lines } = message;
  try {
    const { response, end, lent } = await pageOf(request, lines);
    // A lent body's buffer moves to the main thread, which sends it back after the write. Any
    // other body with an ArrayBuffer of its own moves too; a small one lives in Node's shared
    // pool, which must stay here, and is copied.
    const { body } = response;
    const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    const moved = lent ?? (own ? (body.buffer as ArrayBuffer) : undefined);
    parentPort?.postMessage({ id, response, end, lent: lent !== undefined }, moved ? [moved] : []);
  } catch (error) {
    // The code travels too: SQLITE_BUSY and its kind mean 503, not 500 (see store-errors.ts).
    const { message, code } = error as { message?: unknown; code?: unknown };
    parentPort?.postMessage({
      id,
      error: {
        message: String(message ?? error),
        code: typeof code === 'string' ? code : undefined,
      },
    });
  }
});
