import type { Writable } from 'node:stream';
import type { WholeCampaign } from '../campaigns/campaigns.service.ts';
import {
  type ProjectedRespondent,
  WHOLE_CAMPAIGN_BATCH,
} from '../campaigns/pages/respondent-pages.ts';
import { startThread } from '../threads.ts';
import { readerReady } from './file-source.ts';
import type { FileThreadData, FileThreadMessage, RowsMessage } from './file-thread.ts';
import type { GuestListFormat, GuestListHeadings } from './guest-list-files.ts';

/**
 * A file thread's heap: ExcelJS's cells for the rows in hand and the zip's window, never the whole
 * campaign (the writers wait for their reader). A small young generation keeps the process's
 * peak down: the thread makes short-lived objects at a steady pace, which small scavenges suit.
 */
const THREAD_HEAP_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 };

/** The next `count` rows of `rows`, fewer at its end. */
async function nextRows(
  rows: AsyncIterator<ProjectedRespondent>,
  count: number,
): Promise<ProjectedRespondent[]> {
  const batch: ProjectedRespondent[] = [];
  while (batch.length < count) {
    const next = await rows.next();
    if (next.done) break;
    batch.push(next.value);
  }
  return batch;
}

/**
 * The guest list in `format` written to `out` by a thread of its own: making a workbook's XML and
 * zip takes seconds of a large campaign, which on the serving thread every key's requests would
 * wait behind (docs/performance.md, Guest-list downloads). This thread reads the rows (through
 * the one door to them, under the key's allow-list) and hands them over a read at a time, the
 * next read only once `out` has room: a slow reader slows the file, and memory stays flat.
 * Resolves with the rows written; `written` hears the count as it grows.
 */
export async function writeOnThread(
  format: GuestListFormat,
  whole: WholeCampaign,
  headings: GuestListHeadings,
  out: Writable,
  written: (rows: number) => void = () => {},
): Promise<number> {
  const workerData: FileThreadData = {
    format,
    campaign: { title: whole.campaign.title },
    fields: whole.fields.map(({ key, label, type }) => ({ key, label, type })),
    headings,
  };
  const thread = startThread(import.meta.url, 'file-thread', {
    workerData,
    resourceLimits: THREAD_HEAP_LIMITS,
  });
  const rows = whole.respondents();
  const read = () => {
    const batch = nextRows(rows, WHOLE_CAMPAIGN_BATCH);
    // A failed read is the file's failure once the thread asks for those rows; not before.
    batch.catch(() => {});
    return batch;
  };
  // The next read starts while the thread writes the last one.
  let ahead = read();
  const giveMore = async () => {
    await readerReady(out);
    const batch = await ahead;
    if (batch.length > 0) ahead = read();
    thread.postMessage({ rows: batch } satisfies RowsMessage);
  };
  try {
    return await new Promise<number>((resolve, reject) => {
      thread.on('message', (message: FileThreadMessage) => {
        switch (message.kind) {
          case 'bytes':
            out.write(message.bytes);
            break;
          case 'more':
            written(message.rows);
            giveMore().catch(reject);
            break;
          case 'done':
            written(message.rows);
            resolve(message.rows);
            break;
          case 'failed':
            reject(new Error(`the file thread failed: ${message.message}`));
            break;
        }
      });
      thread.on('error', reject);
      thread.on('exit', (code) => reject(new Error(`the file thread stopped (exit code ${code})`)));
    });
  } finally {
    await rows.return(undefined);
    await thread.terminate();
  }
}
