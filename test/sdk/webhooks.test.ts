import { describe, expect, it } from 'vitest';
import { HadirWebhookError, verifyWebhook } from '../../packages/client/src/index.ts';
import { newWebhookSecret, signatureHeader } from '../../src/notifications/signing.ts';

const body = JSON.stringify({
  type: 'respondents.changed',
  timestamp: '2026-11-25T10:00:00.000Z',
  data: { campaignId: 'nikah', changed: 3, removed: 1, since: '2026-11-01T00:00:00.000Z' },
});

function signed(secrets: string[], at = new Date(), payload = body) {
  return {
    'webhook-id': 'msg_test',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, 'msg_test', at, payload),
  };
}

describe('verifyWebhook', () => {
  const secret = newWebhookSecret();

  it('verifies the raw body as a string or as bytes, with headers of any shape', () => {
    const headers = signed([secret]);
    const event = verifyWebhook({ secret, headers, body });
    expect(event.type).toBe('respondents.changed');
    if (event.type === 'respondents.changed') expect(event.data.changed).toBe(3);
    expect(
      verifyWebhook({
        secret,
        headers: new Headers(headers),
        body: new TextEncoder().encode(body),
      }),
    ).toEqual(event);
    // Node gives lower-case names; some frameworks keep the case they were sent in.
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook({ secret, headers: upper, body })).toEqual(event);
  });

  it('tries every signature in the header during a rotation', () => {
    const next = newWebhookSecret();
    const headers = signed([next, secret]);
    expect(verifyWebhook({ secret, headers, body }).type).toBe('respondents.changed');
    expect(verifyWebhook({ secret: next, headers, body }).type).toBe('respondents.changed');
    expect(verifyWebhook({ secret: [newWebhookSecret(), next], headers, body }).type).toBe(
      'respondents.changed',
    );
  });

  it('refuses a changed body, another secret, a stale timestamp and a missing header', () => {
    const headers = signed([secret]);
    expect(() => verifyWebhook({ secret, headers, body: body.replace('3', '4') })).toThrow(
      HadirWebhookError,
    );
    // A body parsed and written again is not the body that was signed.
    expect(() =>
      verifyWebhook({ secret, headers, body: JSON.stringify(JSON.parse(body), null, 2) }),
    ).toThrow(HadirWebhookError);
    expect(() => verifyWebhook({ secret: newWebhookSecret(), headers, body })).toThrow(
      /could not be verified/,
    );
    const stale = signed([secret], new Date(Date.now() - 6 * 60_000));
    expect(() => verifyWebhook({ secret, headers: stale, body })).toThrow(HadirWebhookError);
    const withinTolerance = signed([secret], new Date(Date.now() - 4 * 60_000));
    expect(verifyWebhook({ secret, headers: withinTolerance, body }).type).toBe(
      'respondents.changed',
    );
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect(() => verifyWebhook({ secret, headers: unsigned, body })).toThrow(
      'the webhook-signature header is missing',
    );
  });
});
