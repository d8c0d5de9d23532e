import { describe, expect, it } from 'vitest';
import {
  clientNetwork,
  decideSignIn,
  decideThrottle,
  MAX_UNREDEEMED_LOGIN_CODES,
  passwordThrottleKey,
} from '../../src/portal/lockout.ts';

describe('sign-in throttles and locks, as pure decisions', () => {
  it('allows a window up to its budget, then says how long until it ends', () => {
    const windowStart = 1_000_000;
    expect(decideThrottle({ windowStart, count: 10 }, 10, 60_000, windowStart + 5_000)).toEqual({
      kind: 'allowed',
    });
    expect(decideThrottle({ windowStart, count: 11 }, 10, 60_000, windowStart + 5_000)).toEqual({
      kind: 'throttled',
      retryAfterMs: 55_000,
    });
  });

  it("charges a trusted device's password attempts to the device, never to the address", () => {
    expect(passwordThrottleKey('a@example.com', '192.0.2.1')).toBe(
      'password:a@example.com|192.0.2.1',
    );
    expect(passwordThrottleKey('a@example.com', '192.0.2.1', 'dev-1')).toBe(
      'password-device:dev-1',
    );
  });

  it('counts an IPv4 client alone and an IPv6 client by its /64', () => {
    expect(clientNetwork('192.0.2.7')).toBe('192.0.2.7');
    expect(clientNetwork('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientNetwork('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:db8:1:2:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:db8:1:3::1')).not.toBe(clientNetwork('2001:db8:1:2::1'));
  });

  it('locks only after enough unredeemed codes, and stays locked until lifted', () => {
    const below = MAX_UNREDEEMED_LOGIN_CODES - 1;
    expect(decideSignIn({ lockedAt: null, unredeemedLoginCodes: below })).toBe('open');
    expect(decideSignIn({ lockedAt: null, unredeemedLoginCodes: MAX_UNREDEEMED_LOGIN_CODES })).toBe(
      'lock_now',
    );
    expect(decideSignIn({ lockedAt: 5, unredeemedLoginCodes: 0 })).toBe('locked');
  });
});
