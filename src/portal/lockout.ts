import { DAY_MS } from '../time-units.ts';
/**
 * Throttles and locks of the portal's sign-in, as pure decisions over counts the store keeps.
 *
 * Two rules shape them. A stranger who knows only an e-mail address must not be able to lock its
 * owner out: what a request without the password can do is throttle, never lock, and a wrong code
 * counts only against a code that was really sent. And answers must not tell which addresses have
 * accounts: throttles are kept per address string, whether or not an account exists, and the
 * account's own state is told only to a request that proved its password.
 */

import ipaddr from 'ipaddr.js';

/**
 * Failed passwords per e-mail address string and client network within the window, then 429
 * until it ends. Kept per network so that a stranger's guesses from elsewhere never delay the
 * holder's own sign-in: guessing from many networks meets argon2id, the password rules and the
 * per-address budget below.
 */
export const MAX_FAILED_PASSWORDS = 10;
export const PASSWORD_FAILURE_WINDOW_MS = 15 * 60_000;

/** Sign-in and code attempts per client address per minute (a flood from one place). */
export const ADDRESS_ATTEMPTS_PER_MINUTE = 20;
export const ADDRESS_WINDOW_MS = 60_000;

/**
 * Sign-in codes sent in a row (each after a correct password) without one being redeemed, past
 * which the account locks until an operator unlocks it: someone holds the password but not the
 * mailbox. With five codes per ten minutes and five tries per code, that is at most a hundred
 * guesses at a million codes before the lock.
 */
export const MAX_UNREDEEMED_LOGIN_CODES = 20;

/**
 * Wrong current passwords a session may send to change-password; the next ends the session.
 * The budget is the session's: it never touches sign-in, so nobody is locked out by it.
 */
export const MAX_WRONG_CURRENT_PASSWORDS = 5;

/**
 * Wrong reset codes per address string in a day, past which codes are refused for it (the link
 * in the mail still works: it cannot be guessed).
 */
export const MAX_WRONG_RESET_CODES = 10;
export const RESET_CODE_WINDOW_MS = DAY_MS;

/** A fixed-window counter as the store returns it after counting one more. */
export interface ThrottleWindow {
  windowStart: number;
  count: number;
}

export type ThrottleDecision = { kind: 'allowed' } | { kind: 'throttled'; retryAfterMs: number };

/** Whether a window that now holds `count` hits is over its budget, and for how long. */
export function decideThrottle(
  window: ThrottleWindow,
  budget: number,
  windowMs: number,
  now: number,
): ThrottleDecision {
  if (window.count <= budget) return { kind: 'allowed' };
  return { kind: 'throttled', retryAfterMs: window.windowStart + windowMs - now };
}

/**
 * The network a client address stands for in throttles: an IPv4 address itself, an IPv6
 * address's /64 (what one subscriber is given, so rotating within it buys no more tries).
 */
export function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * The counter a password attempt is charged to: the address string from the client's network,
 * or, for a request holding a trusted device of the account, that device's own (strangers'
 * failures never throttle it).
 */
export function passwordThrottleKey(
  email: string,
  network: string,
  trustedDeviceId?: string,
): string {
  return trustedDeviceId === undefined
    ? `${passwordThrottlePrefix(email)}${network}`
    : deviceThrottleKey(trustedDeviceId);
}

/** The password counter of a trusted device: its own, whoever else tries the address. */
export const deviceThrottleKey = (deviceId: string) => `password-device:${deviceId}`;

/** What every network's password counter of an address starts with (to clear them all). */
export const passwordThrottlePrefix = (email: string) => `password:${email}|`;

/** What a correct password may lead to, given the account's lock state. */
export type SignInState = 'open' | 'locked' | 'lock_now';

export function decideSignIn(account: {
  lockedAt: number | null;
  unredeemedLoginCodes: number;
}): SignInState {
  if (account.lockedAt !== null) return 'locked';
  return account.unredeemedLoginCodes >= MAX_UNREDEEMED_LOGIN_CODES ? 'lock_now' : 'open';
}
