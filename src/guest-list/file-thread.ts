// The entry of a file thread (see written-on-a-thread.ts): it writes one guest list from the
// rows the main thread sends, and sends the file's bytes back as they are made.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import type { ProjectedRespondent } from '../campaigns/pages/respondent-pages.ts';
import type { GuestListSource } from './file-source.ts';
import {
  type GuestListFormat,
  type GuestListHeadings,
  writeGuestList,
} from './guest-list-files.ts';

/** What a file thread is started with: the file's format, campaign, fields and headings. */
export interface FileThreadData {
  format: GuestListFormat;
  campaign: GuestListSource['campaign'];
  fields: GuestListSource['fields'];
  headings: GuestListHeadings;
}

/** What a file thread tells the main thread. */
export type FileThreadMessage =
  /** Bytes of the file, in order. */
  | { kind: 'bytes'; bytes: Uint8Array }
  /** The next rows are wanted; `rows` are in the file so far. */
  | { kind: 'more'; rows: number }
  | { kind: 'done'; rows: number }
  | { kind: 'failed'; message: string };

/** The main thread's answer to `more`: the next rows, none once the campaign has been read. */
export interface RowsMessage {
  rows: ProjectedRespondent[];
}

/** Bytes gathered before they cross to the main thread: one message per row would cost more. */
const BYTES_PER_MESSAGE = 64 * 1024;

/**
 * The thread yields the processor to the serving thread: on Linux a thread has a niceness of its
 * own, set through its id (the last part of /proc/thread-self). Elsewhere it keeps the process's.
 */
function yieldToServing(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (Number.isInteger(threadId)) setPriority(threadId, 10);
  } catch {
    // No /proc, or not allowed: the file is written at the process's priority.
  }
}
yieldToServing();

const port = parentPort;
if (!port) throw new Error('file-thread.ts runs as a worker thread');
const data = workerData as FileThreadData;

let gathered: Buffer[] = [];
let gatheredBytes = 0;
function send(): void {
  if (gatheredBytes === 0) return;
  const bytes = gathered.length === 1 ? (gathered[0] as Buffer) : Buffer.concat(gathered);
  gathered = [];
  gatheredBytes = 0;
  (port as NonNullable<typeof port>).postMessage({ kind: 'bytes', bytes } as FileThreadMessage);
}
const out = new Writable({
  write(chunk: Buffer, _encoding, done) {
    // A copy: the writers' small chunks share Node's buffer pool with what comes next.
    gathered.push(Buffer.from(chunk));
    gatheredBytes += chunk.length;
    if (gatheredBytes >= BYTES_PER_MESSAGE) send();
    done();
  },
});

let rowsWritten = 0;
const batches: Array<(rows: ProjectedRespondent[]) => void> = [];
port.on('message', ({ rows }: RowsMessage) => batches.shift()?.(rows));

async function* respondents(): AsyncGenerator<ProjectedRespondent> {
  for (;;) {
    send();
    const next = new Promise<ProjectedRespondent[]>((resolve) => batches.push(resolve));
    port?.postMessage({ kind: 'more', rows: rowsWritten } as FileThreadMessage);
    const rows = await next;
    if (rows.length === 0) return;
    yield* rows;
  }
}

writeGuestList(
  data.format,
  { campaign: data.campaign, fields: data.fields, respondents },
  data.headings,
  out,
  (rows) => {
    rowsWritten = rows;
  },
).then(
  (rows) => {
    send();
    port.postMessage({ kind: 'done', rows } as FileThreadMessage);
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    port.postMessage({ kind: 'failed', message } as FileThreadMessage);
  },
);
