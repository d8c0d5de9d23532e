import { Worker } from 'node:worker_threads';
import { releasing } from '../http/body-pool.ts';
import type { CachedResponse } from '../http/response-cache.ts';
import type { PageRead, PageReader, PageRequest } from './page-reader.ts';
import type { ReaderMessage } from './page-reader-thread.ts';

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
function startThread(databaseUrl: string): Worker {
  const source = import.meta.url.endsWith('.ts');
  const entry = new URL(`./page-reader-thread.${source ? 'ts' : 'js'}`, import.meta.url);
  const options = { workerData: { databaseUrl }, resourceLimits: READER_HEAP_LIMITS };
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
    databaseUrl: string,
    onStart: ((worker: Worker) => void) | undefined,
    onExit: (thread: ReaderThread) => void,
  ) {
    this.worker = startThread(databaseUrl);
    // Open requests keep the process alive through their sockets; an idle thread must not.
    this.worker.unref();
    this.worker.on('message', (reply: ReaderReply) => this.#settle(reply));
    this.worker.on('error', (error) => this.#failAll(error));
    this.worker.on('exit', () => {
      this.#failAll(new Error('a page reader thread stopped'));
      onExit(this);
    });
    onStart?.(this.worker);
  }

  #settle({ id, response, end, lent, error }: ReaderReply): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (error !== undefined || !response) {
      const failure = new Error(error?.message ?? 'a page reader thread answered nothing');
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
 * Pages of a SQLite store read in `count` threads, each with its own connection (WAL lets
 * readers run beside each other and beside the writer). Reading and serialising a page is most of
 * a page request's work and better-sqlite3 runs it synchronously: in a thread it leaves the main
 * thread to HTTP and uses the machine's other cores. Threads start on first use, or all at once
 * with `startAll` (a listening server does, so no early request waits for one); a thread that
 * stops fails its requests and is replaced by the next request.
 */
export class PageReaderThreads {
  readonly #databaseUrl: string;
  readonly #count: number;
  readonly #onStart: ((worker: Worker) => void) | undefined;
  readonly #threads: ReaderThread[] = [];
  #nextId = 0;
  #closed = false;

  /** `onStart` sees each thread as it starts (the first, and any replacement). */
  constructor(databaseUrl: string, count: number, onStart?: (worker: Worker) => void) {
    this.#databaseUrl = databaseUrl;
    this.#count = count;
    this.#onStart = onStart;
  }

  readonly read: PageReader = (request: PageRequest) => {
    if (this.#closed) return Promise.reject(new Error('the page readers are closed'));
    const thread = this.#leastBusy();
    const id = this.#nextId++;
    return new Promise<PageRead>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.post({ id, request });
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
    const thread = new ReaderThread(this.#databaseUrl, this.#onStart, (stopped) => {
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
