import { describe, expect, it } from 'vitest';
import { failureKind, lastAnswer } from '../../src/portal-pages/delivery-failure.ts';
import { MESSAGES } from '../../src/portal-pages/messages.ts';

describe("a delivery's failure in words", () => {
  it('names what went wrong from the status, or else from the error the sender recorded', () => {
    const cases: Array<[number | null, string | null, string | undefined]> = [
      [200, null, undefined],
      [204, null, undefined],
      [500, 'HTTP 500', 'serverError'],
      [503, 'HTTP 503', 'serverError'],
      [404, 'HTTP 404', 'turnedAway'],
      [410, 'HTTP 410', 'gone'],
      [302, 'redirect to elsewhere (not followed)', 'redirect'],
      [null, 'connect ECONNREFUSED 127.0.0.1:9', 'refused'],
      [null, 'no answer within 10 s', 'timeout'],
      [null, 'no answer within 10 s (lookup)', 'timeout'],
      [null, 'lookup: ENOTFOUND hooks.example', 'lookup'],
      [null, 'CERT_HAS_EXPIRED: certificate has expired', 'certificate'],
      [null, 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate', 'certificate'],
      [null, 'ECONNRESET: socket hang up', 'closed'],
      [null, 'the connection closed', 'closed'],
      [null, 'connect EHOSTUNREACH 10.0.0.1:443', 'unreachable'],
      [null, 'the URL names a private address', 'address'],
      [null, 'hooks.example resolves to 10.0.0.1, and a private address', 'address'],
      [null, 'something new', 'other'],
      [null, null, undefined],
    ];
    for (const [status, error, kind] of cases) {
      expect(failureKind(status, error), `${status} ${error}`).toBe(kind);
    }
  });

  it('puts the words first and keeps the technical text for developers, in both languages', () => {
    expect(lastAnswer(MESSAGES.en, null, 'connect ECONNREFUSED 127.0.0.1:9')).toEqual({
      words: 'Your server refused the connection',
      technical: 'connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(lastAnswer(MESSAGES.id, 502, 'HTTP 502').words).toBe('Server Anda mengalami galat');
    expect(lastAnswer(MESSAGES.en, 200, null)).toEqual({ technical: 'HTTP 200' });
    for (const language of ['en', 'id'] as const) {
      expect(Object.keys(MESSAGES[language].webhooks.failure).sort()).toEqual(
        Object.keys(MESSAGES.en.webhooks.failure).sort(),
      );
    }
  });
});
