import { createHash } from 'node:crypto';
import type { components } from './ingest-types.generated.ts';
import { tracedSend } from './tracing.ts';

/** What Hadir answered a batch with (openapi/ingest.json; docs/ingesting.md). */
export type BatchAnswer = components['schemas']['BatchAnswer'];

/** How sending a batch ended, once retries are spent or not needed. */
export type SendResult =
  | { kind: 'applied'; answer: BatchAnswer; replayed: boolean }
  /**
   * 422: bad records, each named by its line (1-based) in `lines`, with its own problems in
   * `problems`; nothing was written.
   */
  | { kind: 'refused'; message: string; lines: number[]; problems: ReadonlyMap<number, string> }
  /** Any other answer that retrying cannot mend (401, 409, 413, …). */
  | { kind: 'failed'; status: number; message: string };

/** Hadir stayed busy, failing or out of reach through every try of a batch: try again later. */
export class IngestUnavailable extends Error {}

export interface IngestClientOptions {
  /** Where Hadir's ingest API is: https://hadir.example.com (or its INGEST_PORT listener). */
  baseUrl: string;
  /** An ingest token (hadir_it_…), never an API key. */
  token: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Tries of one batch while Hadir answers 429 or 5xx or cannot be reached; then it throws
   * IngestUnavailable.
   */
  maxTries?: number;
  /** Told of each wait, with its reason. */
  onRetry?: (event: { waitMs: number; reason: string }) => void;
}

/** The Idempotency-Key of a batch of outbox rows: the same rows give the same key, on any relay. */
export function batchKey(rowIds: ReadonlyArray<string | number>): string {
  return `rows-${createHash('sha256').update(rowIds.join(',')).digest('hex')}`;
}

/** The lines a 422 names (`line 12 (id r5): …`), 1-based, each with its own problems. */
function problemsOf(message: string): Map<number, string> {
  const problems = new Map<number, string>();
  for (const [text, line] of message.matchAll(/^\s*line (\d+)\b.*$/gm)) {
    const number = Number(line);
    const known = problems.get(number);
    problems.set(number, known ? `${known}\n${text.trim()}` : text.trim());
  }
  return problems;
}

/** How long to wait before try `attempt + 1`: Retry-After when given, else backing off. */
function waitBefore(attempt: number, retryAfter: string | null): number {
  const seconds = Number(retryAfter);
  if (retryAfter !== null && Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
  return Math.min(30_000, 250 * 2 ** (attempt - 1));
}

/**
 * Sends batches of JSON Lines records to Hadir's ingest API, for a platform that calls Hadir
 * from its own code. A batch is retried, with the same Idempotency-Key, on 429 and on any 5xx
 * (after Retry-After, or backing off) and on network errors: Hadir applies it once however often
 * it arrives, so a try whose answer was lost or failed costs nothing but time.
 */
export class IngestClient {
  readonly #options: Required<Omit<IngestClientOptions, 'onRetry'>> &
    Pick<IngestClientOptions, 'onRetry'>;

  constructor(options: IngestClientOptions) {
    this.#options = {
      fetch: globalThis.fetch,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      maxTries: 8,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
    };
  }

  /**
   * Sends one batch under its key; `oldestChangeAt` (ISO 8601) is when the platform committed its
   * oldest change, sent as Hadir-Oldest-Change for Hadir's delay metric (a time, never a record).
   */
  async send(
    records: readonly unknown[],
    idempotencyKey: string,
    options: { oldestChangeAt?: string | undefined } = {},
  ): Promise<SendResult> {
    return tracedSend(records.length, (traceHeaders) =>
      this.#send(records, idempotencyKey, options, traceHeaders),
    );
  }

  async #send(
    records: readonly unknown[],
    idempotencyKey: string,
    options: { oldestChangeAt?: string | undefined },
    traceHeaders: Record<string, string>,
  ): Promise<SendResult> {
    const body = `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
    const { fetch, sleep, maxTries, onRetry } = this.#options;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${this.#options.baseUrl}/ingest/v1/batches`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${this.#options.token}`,
            'content-type': 'application/x-ndjson',
            'idempotency-key': idempotencyKey,
            ...(options.oldestChangeAt ? { 'hadir-oldest-change': options.oldestChangeAt } : {}),
            ...traceHeaders,
          },
          body,
        });
      } catch (error) {
        const reason = `cannot reach Hadir at ${this.#options.baseUrl}: ${networkCause(error)}`;
        if (attempt >= maxTries) throw new IngestUnavailable(reason, { cause: error });
        const waitMs = waitBefore(attempt, null);
        onRetry?.({ waitMs, reason });
        await sleep(waitMs);
        continue;
      }
      const text = await response.text();
      if (response.status === 200) {
        return {
          kind: 'applied',
          answer: JSON.parse(text) as BatchAnswer,
          replayed: response.headers.get('idempotent-replayed') === 'true',
        };
      }
      const message = messageOf(text) ?? `HTTP ${response.status}`;
      if (response.status === 429 || response.status >= 500) {
        const reason = `Hadir answered ${response.status}: ${message}`;
        if (attempt >= maxTries) throw new IngestUnavailable(reason);
        const waitMs = waitBefore(attempt, response.headers.get('retry-after'));
        onRetry?.({ waitMs, reason });
        await sleep(waitMs);
        continue;
      }
      if (response.status === 422) {
        const problems = problemsOf(message);
        return { kind: 'refused', message, lines: [...problems.keys()], problems };
      }
      return { kind: 'failed', status: response.status, message };
    }
  }
}

/**
 * Why a request never got an answer, in words: fetch says only "fetch failed" and keeps the
 * system's reason (a code, an address and port) in its cause.
 */
export function networkCause(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause as
    | { code?: unknown; address?: unknown; port?: unknown; message?: unknown; hostname?: unknown }
    | undefined;
  if (!cause || typeof cause !== 'object') return (error as Error).message;
  const code = typeof cause.code === 'string' ? cause.code : undefined;
  const where =
    typeof cause.address === 'string'
      ? ` at ${cause.address}${typeof cause.port === 'number' ? `:${cause.port}` : ''}`
      : typeof cause.hostname === 'string'
        ? ` for ${cause.hostname}`
        : '';
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ETIMEDOUT: 'connection timed out',
    ENOTFOUND: 'no such host',
    EAI_AGAIN: 'the name lookup failed for now',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
    UND_ERR_SOCKET: 'the connection closed',
  };
  const said = code ? (words[code] ?? String(cause.message ?? code)) : String(cause.message);
  return `${said}${code ? ` (${code}${where})` : where}`;
}

function messageOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message : undefined;
  } catch {
    return undefined;
  }
}
