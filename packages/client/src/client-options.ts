export interface RateLimitEvent {
  url: string;
  retryAfterSeconds: number;
}

export interface RetryEvent {
  url: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

/** What the service answered one request: its status, and the key's budget as it stands. */
export interface AnswerEvent {
  url: string;
  status: number;
  /** From the RateLimit-* headers, when the answer has them. */
  rateLimit?: { limit: number; remaining: number; resetSeconds: number };
}

export interface HadirClientOptions {
  /** The service root, e.g. https://hadir.example.com (the /developer/v1 prefix is added). */
  baseUrl: string;
  /** A `hadir_sk_…` key. Keep it on a server: never in browser code or a repository. */
  apiKey: string;
  /** Attempts after the first for 5xx answers and network errors (default 4). */
  maxRetries?: number;
  /** 429 answers waited out for one request before giving up (default 50). */
  maxRateLimitWaits?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Called before each wait on a 429 (R3). */
  onRateLimit?: (event: RateLimitEvent) => void;
  /** Called before each retry of a 5xx answer or a network error. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Called on every answer, before it is read: a `304` is not counted by the rate limit, any
   * other status is. For clients that pace themselves within the key's budget.
   */
  onAnswer?: (event: AnswerEvent) => void;
  signal?: AbortSignal;
  /**
   * How the client names itself (User-Agent), e.g. `my-mirror/2.1`; `hadir-client/1` when not
   * given. The service records which tool asked for each answer it hands over.
   */
  userAgent?: string;
  /** For tests and custom transports. */
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}
