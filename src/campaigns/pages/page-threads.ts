import type { Worker } from 'node:worker_threads';
import type { Store } from '../../db/store.ts';
import type { CachedResponse } from '../../http/response-cache.ts';
import { startThread } from '../../threads.ts';
import type { Page, PageRequest } from './page-body.ts';
import { readPageText } from './page-rows.repository.ts';
import type { PageJob, PageThreadData } from './page-thread.ts';

/** Where the threads' pages get their rows. */
export type PageThreadSource =
  /** Each thread reads through its own connection to this SQLite file. */
  | { readsFrom: 'sqlite-file'; url: string }
  /** The main thread reads each page's lines from this store and sends them to a thread. */
  | { readsFrom: 'main-thread'; store: Store };

interface Pending {
  resolve: (page: Page) => void;
  reject: (error: Error) => void;
}

interface ThreadReply {
  id: number;
  response?: Omit<CachedResponse, 'body'> & { body: Uint8Array };
  end?: Page['end'];
  error?: { message: string; code: string | undefined };
}

/**
 * A thread holds one page at a time and little else, so its heap is kept small: with V8's
 * defaults its young generation alone would grow to tens of megabytes under a stream of pages.
 */
const THREAD_HEAP_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 96 };

/** One thread and the pages it has not answered yet. */
class PageThread {
  readonly pending = new Map<number, Pending>();
  readonly worker: Worker;

  constructor(
    workerData: PageThreadData,
    onStart: ((worker: Worker) => void) | undefined,
    onExit: (thread: PageThread) => void,
  ) {
    this.worker = startThread(import.meta.url, 'page-thread', {
      workerData,
      resourceLimits: THREAD_HEAP_LIMITS,
    });
    // Open requests keep the process alive through their sockets; an idle thread must not.
    this.worker.unref();
    this.worker.on('message', (reply: ThreadReply) => this.#settle(reply));
    this.worker.on('error', (error) => this.#failAll(error));
    this.worker.on('exit', () => {
      this.#failAll(new Error('a page thread stopped'));
      onExit(this);
    });
    onStart?.(this.worker);
  }

  #settle({ id, response, end, error }: ThreadReply): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (error !== undefined || !response) {
      const failure = new Error(error?.message ?? 'a page thread answered nothing');
      if (error?.code) Object.assign(failure, { code: error.code });
      pending.reject(failure);
      return;
    }
    const { body } = response;
    pending.resolve({
      response: { ...response, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) },
      end,
    });
  }

  post(job: PageJob): void {
    this.worker.postMessage(job);
  }

  #failAll(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}

/**
 * Pages written in `count` threads: writing a page is most of a page request's work, and in a
 * thread it leaves the main thread to HTTP and uses the machine's other cores. On a SQLite file
 * each thread also reads its pages through its own connection (better-sqlite3 reads
 * synchronously; WAL lets readers run beside each other and beside the writer). On PostgreSQL the
 * main thread reads a page's lines (pg never blocks) and hands them to a thread. Threads start
 * on first use, or all at once with `startAll` (a listening server does, so no early request
 * waits for one); a thread that stops fails its pages and is replaced by the next.
 */
export class PageThreads {
  readonly #source: PageThreadSource;
  readonly #workerData: PageThreadData;
  readonly #count: number;
  readonly #onStart: ((worker: Worker) => void) | undefined;
  readonly #threads: PageThread[] = [];
  #nextId = 0;
  #closed = false;

  /** `onStart` sees each thread as it starts (the first, and any replacement). */
  constructor(
    source: PageThreadSource,
    options: {
      count: number;
      cursorKey: Uint8Array;
      quoteJumping: boolean;
      onStart?: (worker: Worker) => void;
    },
  ) {
    this.#source = source;
    this.#count = options.count;
    this.#onStart = options.onStart;
    this.#workerData = {
      sqliteUrl: source.readsFrom === 'sqlite-file' ? source.url : undefined,
      cursorKey: options.cursorKey,
      quoteJumping: options.quoteJumping,
    };
  }

  async write(request: PageRequest): Promise<Page> {
    if (this.#closed) throw new Error('the page threads are closed');
    const source = this.#source;
    let text: string | undefined;
    if (source.readsFrom === 'main-thread') {
      const { campaignId, sinceMs, after, limit } = request;
      // One string crosses to a thread for a copy of its bytes.
      const page = await readPageText(source.store, { campaignId, sinceMs, after }, limit + 1);
      text = page.take() ?? '';
    }
    const thread = this.#leastBusy();
    const id = this.#nextId++;
    return new Promise<Page>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.post(text === undefined ? { id, request } : { id, request, text });
    });
  }

  /** Threads running now. */
  get running(): number {
    return this.#threads.length;
  }

  /** Starts every thread not running yet; starting one takes a few hundred milliseconds. */
  startAll(): void {
    while (!this.#closed && this.#threads.length < this.#count) this.#start();
  }

  #start(): PageThread {
    const thread = new PageThread(this.#workerData, this.#onStart, (stopped) => {
      const index = this.#threads.indexOf(stopped);
      if (index >= 0) this.#threads.splice(index, 1);
    });
    this.#threads.push(thread);
    return thread;
  }

  #leastBusy(): PageThread {
    if (this.#threads.length < this.#count) return this.#start();
    let best = this.#threads[0] as PageThread;
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
