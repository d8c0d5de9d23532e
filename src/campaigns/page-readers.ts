import { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { releasing } from '../http/body-pool.ts';
import type { CachedResponse } from '../http/response-cache.ts';
import { type PageRead, type PageReader, type PageRequest, readPageLines } from './page-reader.ts';
import type { PageThreadData, ReaderMessage } from './page-reader-thread.ts';

/** Where the threads' pages get their rows. */
export type PageThreadSource =
  /** Each thread reads through its own connection to this SQLite file. */
  | { readsFrom: 'sqlite-file'; url: string }
  /** The main thread reads each page's lines from this store and sends them to a thread. */
  | { readsFrom: 'main-thread'; db: Kysely<Database> };

interface Pending {
  resolve: (read: PageRead) => void;
  reject: (error: Error) => void;
}

interface ReaderReply {
  id: number;
  response?: Omit<CachedResponse, 'body'> & { body: Uint8Array };
  end?: PageRead['end'];
  /** The body's buffer is the thread's, lent: it goes back once the body is sent. */
  lent?: boolean;
  error?: { message: string; code: string | undefined };
}

/**
 * Starts the thread's entry module. Run from the TypeScript sources (the CLI, the tests), the
 * thread registers tsx's loader before importing it, as the main thread had it from the command.
 */
function startThread(workerData: PageThreadData): Worker {
  const source = import.meta.url.endsWith('.ts');
  const entry = new URL(`./page-reader-thread.${source ? 'ts' : 'js'}`, import.meta.url);
  const options = { workerData, resourceLimits: READER_HEAP_LIMITS };
  if (!source) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * A thread holds one page at a time and little else, so its heap is kept small: with V8's
 * defaults its young generation alone would grow to tens of megabytes under a stream of pages.
 */
const READER_HEAP_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 96 };

/** One thread and the requests it has not answered yet. */
class ReaderThread {
  readonly pending = new Map<number, Pending>();
  readonly worker: Worker;

  constructor(
    workerData: PageThreadData,
    onStart: ((worker: Worker) => void) | undefined,
    onExit: (thread: ReaderThread) => void,
  ) {
    this.worker = startThread(workerData);
    // Open requests keep the process alive through their sockets; an idle thread must not.
    this.worker.unref();
    this.worker.on('message', (reply: ReaderReply) => this.#settle(reply));
    this.worker.on('error', (error) => this.#failAll(error));
    this.worker.on('exit', () => {
      this.#failAll(new Error('a page thread stopped'));
      onExit(this);
    });
    onStart?.(this.worker);
  }

  #settle({ id, response, end, lent, error }: ReaderReply): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (error !== undefined || !response) {
      const failure = new Error(error?.message ?? 'a page thread answered nothing');
      if (error?.code) Object.assign(failure, { code: error.code });
      pending.reject(failure);
      return;
    }
    const buffer = response.body.buffer as ArrayBuffer;
    const body = Buffer.from(buffer, response.body.byteOffset, response.body.byteLength);
    const release = lent ? releasing(() => this.post({ giveBack: buffer }, [buffer])) : undefined;
    pending.resolve({ response: { ...response, body, ...(release ? { release } : {}) }, end });
  }

  post(message: ReaderMessage, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  #failAll(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}

/**
 * Pages serialised in `count` threads: serialising a page is most of a page request's work, and
 * in a thread it leaves the main thread to HTTP and uses the machine's other cores. On a SQLite
 * file each thread also reads its pages through its own connection (better-sqlite3 reads
 * synchronously; WAL lets readers run beside each other and beside the writer). On PostgreSQL
 * the main thread reads a page's lines (pg never blocks) and hands them to a thread. Threads
 * start on first use, or all at once with `startAll` (a listening server does, so no early
 * request waits for one); a thread that stops fails its requests and is replaced by the next.
 */
export class PageReaderThreads {
  readonly #source: PageThreadSource;
  readonly #cursorKey: Uint8Array;
  readonly #count: number;
  readonly #onStart: ((worker: Worker) => void) | undefined;
  readonly #threads: ReaderThread[] = [];
  #nextId = 0;
  #closed = false;

  /**
   * `cursorKey` signs the pages' cursors (see CursorCodec); `onStart` sees each thread as it
   * starts (the first, and any replacement).
   */
  constructor(
    source: PageThreadSource,
    cursorKey: Uint8Array,
    count: number,
    onStart?: (worker: Worker) => void,
  ) {
    this.#source = source;
    this.#cursorKey = cursorKey;
    this.#count = count;
    this.#onStart = onStart;
  }

  readonly read: PageReader = async (request: PageRequest) => {
    if (this.#closed) throw new Error('the page readers are closed');
    const source = this.#source;
    const lines =
      source.readsFrom === 'main-thread' ? await readPageLines(source.db, request) : undefined;
    const thread = this.#leastBusy();
    const id = this.#nextId++;
    return new Promise<PageRead>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.post(lines ? { id, request, lines } : { id, request });
    });
  };

  /** Threads running now. */
  get running(): number {
    return this.#threads.length;
  }

  /** Starts every thread not running yet; starting one takes a few hundred milliseconds. */
  startAll(): void {
    while (!this.#closed && this.#threads.length < this.#count) this.#start();
  }

  #start(): ReaderThread {
    const source = this.#source;
    const workerData: PageThreadData = {
      sqliteUrl: source.readsFrom === 'sqlite-file' ? source.url : undefined,
      cursorKey: this.#cursorKey,
    };
    const thread = new ReaderThread(workerData, this.#onStart, (stopped) => {
      const index = this.#threads.indexOf(stopped);
      if (index >= 0) this.#threads.splice(index, 1);
    });
    this.#threads.push(thread);
    return thread;
  }

  #leastBusy(): ReaderThread {
    if (this.#threads.length < this.#count) return this.#start();
    let best = this.#threads[0] as ReaderThread;
    for (const thread of this.#threads) {
      if (thread.pending.size < best.pending.size) best = thread;
    }
    return best;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.map((thread) => thread.worker.terminate()));
  }
}
