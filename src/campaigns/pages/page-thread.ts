// The entry of a page thread (see page-threads.ts): it writes the pages the main thread asks for,
// reading their rows through its own connection to a SQLite file, or from the page's text the
// main thread read from PostgreSQL and sent along.
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../../db/connect.ts';
import { CursorCodec } from '../../paging/page-cursor.ts';
import { type PageRequest, writePage } from './page-body.ts';
import { readPageText } from './page-rows.repository.ts';
import { RESPONDENT_POSITIONS } from './respondent-line.ts';

/**
 * What a thread is started with: the SQLite file it reads, unless its pages come with their
 * lines; the key its pages' cursors are signed with; whether the quote-jumping cutter cuts.
 */
export interface PageThreadData {
  sqliteUrl: string | undefined;
  cursorKey: Uint8Array;
  quoteJumping: boolean;
}

/** A page to write: from its text when given (see readPageText), else read here. */
export interface PageJob {
  id: number;
  request: PageRequest;
  text?: string;
}

const { sqliteUrl, cursorKey, quoteJumping } = workerData as PageThreadData;
const store = sqliteUrl === undefined ? undefined : openStore(sqliteUrl);
const writing = {
  cursors: new CursorCodec(Buffer.from(cursorKey), RESPONDENT_POSITIONS),
  quoteJumping,
};

async function textOf({ request, text }: PageJob): Promise<string> {
  if (text !== undefined) return text;
  if (!store) throw new Error('a page thread without a store was sent a page without its text');
  const { campaignId, sinceMs, after, limit } = request;
  return (await readPageText(store, { campaignId, sinceMs, after }, limit + 1)).take() ?? '';
}

parentPort?.on('message', async (job: PageJob) => {
  try {
    const { response, end } = writePage(await textOf(job), job.request, writing);
    // A body with an ArrayBuffer of its own moves to the main thread; a small one lives in Node's
    // shared pool, which must stay here, and is copied.
    const { body } = response;
    const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    parentPort?.postMessage({ id: job.id, response, end }, own ? [body.buffer as ArrayBuffer] : []);
  } catch (error) {
    // The code travels too: SQLITE_BUSY and its kind mean 503, not 500 (see store-errors.ts).
    const { message, code } = error as { message?: unknown; code?: unknown };
    parentPort?.postMessage({
      id: job.id,
      error: {
        message: String(message ?? error),
        code: typeof code === 'string' ? code : undefined,
      },
    });
  }
});
