// The entry of a page reader thread (see page-readers.ts): its own connection to the SQLite file,
// reading and serialising the pages the main thread asks for.
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../db/connect.ts';
import { type PageRequest, readPageHere } from './page-reader.ts';

export interface ReaderMessage {
  id: number;
  request: PageRequest;
}

const store = openStore((workerData as { databaseUrl: string }).databaseUrl);

parentPort?.on('message', async ({ id, request }: ReaderMessage) => {
  try {
    const { response, end } = await readPageHere(store.db, request);
    // A body with an ArrayBuffer of its own moves to the main thread instead of being copied;
    // a small one lives in Node's shared pool, which must stay here.
    const { body } = response;
    const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    parentPort?.postMessage({ id, response, end }, own ? [body.buffer as ArrayBuffer] : []);
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
