/** An error answer of the API, with the envelope's code and the request id to quote in reports. */
export class HadirApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;

  constructor(status: number, code: string, message: string, requestId: string | undefined) {
    super(`${status} ${code}: ${message}`);
    this.name = 'HadirApiError';
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

/**
 * The service could not be reached (refused, unknown host, reset, TLS), after the retries: names
 * the URL and the cause instead of a bare `fetch failed`.
 */
export class HadirNetworkError extends Error {
  readonly url: string;
  /** The system's code for the failure when it gave one (ECONNREFUSED, ENOTFOUND, …). */
  readonly code: string | undefined;
  /** Why it failed, in the system's words: the code, or the message of the cause. */
  readonly why: string;

  constructor(url: string, error: unknown) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code;
    const why = code ?? cause?.message ?? (error as Error).message;
    super(`cannot reach ${url}: ${why}`, { cause: error });
    this.name = 'HadirNetworkError';
    this.url = url;
    this.code = code;
    this.why = why;
  }
}
