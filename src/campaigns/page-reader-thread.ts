// The entry of a page reader thread (see page-readers.ts): its own connection to the SQLite file,
// reading and serialising the pages the main thread asks for.
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../db/connect.ts';
import { BodyPool } from '../http/body-pool.ts';
import { type PageRequest, readPageHere } from './page-reader.ts';

/** A page to read, or a lent body's buffer coming back once the main thread sent it. */
export type ReaderMessage = { id: number; request: PageRequest } | { giveBack: ArrayBuffer };

const store = openStore((workerData as { databaseUrl: string }).databaseUrl);
const bodies = new BodyPool();

parentPort?.on('message', async (message: ReaderMessage) => {
  if ('giveBack' in message) {
    bodies.giveBack(message.giveBack);
    return;
  }
  const { id, request } = message;
  try {
    const { response, end, lent } = await readPageHere(store.db, request, bodies);
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
