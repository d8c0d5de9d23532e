import type { Messages } from './messages.ts';

/** What went wrong with a delivery, as a holder can act on it. */
export type FailureKind = keyof Messages['webhooks']['failure'];

/** The kinds of a failure without an answer, by the error the sender recorded (webhook-sender.ts). */
const BY_ERROR: ReadonlyArray<[RegExp, FailureKind]> = [
  [/ECONNREFUSED/, 'refused'],
  [/^no answer within|ETIMEDOUT/, 'timeout'],
  [/^lookup|ENOTFOUND|EAI_AGAIN/, 'lookup'],
  [/CERT|certificate|self[- ]signed|SSL|TLS/i, 'certificate'],
  [/ECONNRESET|socket hang up|the connection closed/, 'closed'],
  [/EHOSTUNREACH|ENETUNREACH/, 'unreachable'],
  [/^the URL |^names |resolves to|has no address/, 'address'],
];

/** A failed delivery's kind: by the answer's status when there was one, else by the error. */
export function failureKind(status: number | null, error: string | null): FailureKind | undefined {
  if (status !== null) {
    if (status >= 200 && status < 300) return undefined;
    if (status === 410) return 'gone';
    if (status >= 300 && status < 400) return 'redirect';
    return status >= 500 ? 'serverError' : 'turnedAway';
  }
  if (error === null) return undefined;
  return BY_ERROR.find(([pattern]) => pattern.test(error))?.[1] ?? 'other';
}

/**
 * A delivery's last answer for its holder: what went wrong in words, then the technical text a
 * developer looks for (`HTTP 503`, `connect ECONNREFUSED …`); a success as its status.
 */
export function lastAnswer(
  t: Messages,
  status: number | null,
  error: string | null,
): { words?: string; technical: string } {
  const technical = error ?? (status === null ? '' : `HTTP ${status}`);
  const kind = failureKind(status, error);
  return kind === undefined ? { technical } : { words: t.webhooks.failure[kind], technical };
}
