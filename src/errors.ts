/**
 * The closed set of error codes the service answers with. Each maps to exactly one HTTP status,
 * so a handler only ever names the code.
 */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_parameter'
  | 'unauthorized'
  | 'invalid_credentials'
  | 'invalid_code'
  | 'forbidden'
  | 'step_up_required'
  | 'password_change_required'
  | 'account_locked'
  | 'https_required'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'full_sync_required'
  | 'already_revealed'
  | 'not_revealable'
  | 'payload_too_large'
  | 'unprocessable_entity'
  | 'unsupported_media_type'
  | 'headers_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable';

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'bad_request':
    case 'invalid_parameter':
      return 400;
    case 'unauthorized':
    case 'invalid_credentials':
    case 'invalid_code':
      return 401;
    case 'forbidden':
    case 'step_up_required':
    case 'password_change_required':
    case 'account_locked':
    case 'https_required':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'request_timeout':
      return 408;
    case 'conflict':
    case 'already_revealed':
    case 'not_revealable':
      return 409;
    case 'full_sync_required':
      return 410;
    case 'payload_too_large':
      return 413;
    case 'unprocessable_entity':
      return 422;
    case 'unsupported_media_type':
      return 415;
    case 'headers_too_large':
      return 431;
    case 'rate_limited':
      return 429;
    case 'internal_error':
      return 500;
    case 'service_unavailable':
      return 503;
  }
}

/** An error meant for the caller: its message is shown as is, so it must never carry a secret. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'ApiError';
    this.code = code;
    this.headers = headers;
  }

  get status(): number {
    return statusOf(this.code);
  }
}

/** The envelope every error body uses (spec, Error envelope). */
export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message } };
}

/**
 * A rule of the domain said no, in words for whoever asked: the record does not exist, the change
 * conflicts with what is stored, or the input breaks a rule. The CLI prints the message; an API
 * route maps the kind to its error code.
 */
export type DomainErrorKind = 'not_found' | 'conflict' | 'invalid';

export class DomainError extends Error {
  readonly kind: DomainErrorKind;

  constructor(kind: DomainErrorKind, message: string) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
  }
}

/** A setting that is missing or wrong (environment, files named by it); the start stops on it. */
export class ConfigError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
  }
}
