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
