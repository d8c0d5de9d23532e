import { describe, expect, it } from 'vitest';
import {
  HadirWebhookError,
  HadirWebhookReplayError,
  verifyWebhook,
  WebhookReplayGuard,
} from '../../packages/client/src/index.ts';
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

  it('knows a replay within the tolerance with a guard, and forgets it once the time has passed', () => {
    let now = Date.now();
    const replayGuard = new WebhookReplayGuard({ now: () => now });
    const headers = signed([secret]);
    expect(verifyWebhook({ secret, headers, body, replayGuard }).type).toBe('respondents.changed');
    const replayed = () => verifyWebhook({ secret, headers, body, replayGuard });
    expect(replayed).toThrow(HadirWebhookReplayError);
    expect(replayed).toThrow('msg_test was received before');
    // A forged copy is refused as unverified, not taken for a replay.
    expect(() => verifyWebhook({ secret, headers, body: `${body} `, replayGuard })).toThrow(
      /could not be verified/,
    );
    // Another message is new.
    const other = {
      'webhook-id': 'msg_other',
      'webhook-timestamp': headers['webhook-timestamp'],
      'webhook-signature': signatureHeader(
        [secret],
        'msg_other',
        new Date(Number(headers['webhook-timestamp']) * 1000),
        body,
      ),
    };
    expect(verifyWebhook({ secret, headers: other, body, replayGuard }).type).toBe(
      'respondents.changed',
    );
    // Past the tolerance the timestamp check refuses it anyway, and the guard lets the id go.
    now += 6 * 60_000;
    expect(replayGuard.firstSeen('msg_test', Math.floor(now / 1000))).toBe(true);
    expect(replayGuard.firstSeen('msg_test', Math.floor(now / 1000))).toBe(false);
  });
});
