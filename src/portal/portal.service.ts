import { randomUUID } from 'node:crypto';
import { findAccountByEmail } from '../accounts/accounts.repository.ts';
import { normalizeEmail } from '../accounts/accounts.service.ts';
import {
  hashPassword,
  needsRehash,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordLength,
  verifyPassword,
} from '../accounts/passwords.ts';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/connect.ts';
import type { AccountRow, CodePurpose } from '../db/schema.ts';
import { ApiError, UsageError } from '../errors.ts';
import { openSealedKey } from '../keys/key-seal.ts';
import { listKeys, rotateKey } from '../keys/keys.service.ts';
import type { Mailer } from '../mail/mailer.ts';
import { digestsEqual, generateToken, sha256Hex } from '../secret-hash.ts';
import type { ServerSecrets } from '../secrets.ts';
import { isCommonPassword } from './common-passwords.ts';
import {
  ADDRESS_WINDOW_MS,
  decideSignIn,
  decideThrottle,
  MAX_FAILED_PASSWORDS,
  PASSWORD_FAILURE_WINDOW_MS,
  passwordThrottleKey,
} from './lockout.ts';
import {
  CODE_MAX_ATTEMPTS,
  CODE_SEND_WINDOW_MS,
  CODE_TTL_MS,
  CODES_PER_SEND_WINDOW,
  codeDigest,
  generateCode,
} from './one-time-codes.ts';
import * as repo from './portal.repository.ts';

export const SESSION_TOKEN_PREFIX = 'hadir_ses_';
export const DEVICE_TOKEN_PREFIX = 'hadir_dev_';
const TOKEN_PATTERN = /^hadir_(ses|dev)_[0-9a-f]{64}$/;
export const DEVICE_TTL_MS = 30 * 24 * 60 * 60_000;
export const STEP_UP_TTL_MS = 10 * 60_000;
export const MAX_SESSIONS_PER_ACCOUNT = 10;
export const MAX_DEVICES_PER_ACCOUNT = 20;
const MAX_DEVICE_LABEL_LENGTH = 100;

export interface PortalSettings {
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  /** Login and code attempts per client address per minute. */
  addressAttemptsPerMinute: number;
}

export interface PortalDeps {
  store: Store;
  clock: Clock;
  secrets: ServerSecrets;
  mailer: Mailer;
  settings: PortalSettings;
}

/** Where a request came from, for throttles and the audit log. */
export interface ClientContext {
  address: string;
  deviceLabel?: string;
}

/** The account and session behind a portal request. */
export interface SessionPrincipal {
  sessionId: string;
  accountId: string;
  email: string;
  mustChangePassword: boolean;
  stepUpUntil: number | null;
}

export interface IssuedSession {
  token: string;
  expiresAt: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

function rateLimited(message: string, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError('rate_limited', `${message}; retry after ${seconds} seconds`, {
    'retry-after': String(seconds),
  });
}

const invalidCredentials = () =>
  new ApiError('invalid_credentials', 'the e-mail address or password is wrong');
const accountLocked = () =>
  new ApiError(
    'account_locked',
    'this account is locked after repeated unfinished sign-ins; an operator must unlock it',
  );
const invalidCode = () =>
  new ApiError('invalid_code', 'the code is wrong, used or expired; request a new one if needed');

function codeMail(purpose: CodePurpose, code: string) {
  if (purpose === 'login') {
    return {
      subject: `Kode masuk Hadir: ${code}`,
      text: [
        `Kode masuk Hadir Anda: ${code}`,
        'Kode berlaku 10 menit. Jangan berikan kode ini kepada siapa pun.',
        '',
        `Your Hadir sign-in code is ${code}. It is valid for 10 minutes; never share it.`,
      ].join('\n'),
    };
  }
  return {
    subject: `Kode verifikasi Hadir: ${code}`,
    text: [
      `Kode verifikasi Hadir Anda: ${code}`,
      'Kode ini membuka tindakan sensitif (tampilkan atau rotasi kunci API) selama 10 menit.',
      '',
      `Your Hadir verification code is ${code}. It confirms a sensitive action (key reveal or rotation).`,
    ].join('\n'),
  };
}

/** The portal account API of spec, "Portal account endpoints", framework-free. */
export function createPortalService(deps: PortalDeps) {
  const { store, clock, secrets, mailer, settings } = deps;
  const db = store.db;
  let dummyHash: Promise<string> | undefined;

  const audit = (accountId: string, action: string, client: ClientContext, details: object = {}) =>
    recordAudit(
      db,
      {
        actor: accountId,
        action,
        target: accountId,
        details: { address: client.address, deviceLabel: client.deviceLabel ?? null, ...details },
      },
      clock.now(),
    );

  async function throttleAddress(kind: string, client: ClientContext): Promise<void> {
    const now = clock.now();
    const window = await repo.hitThrottle(db, `${kind}:${client.address}`, ADDRESS_WINDOW_MS, now);
    const decision = decideThrottle(
      window,
      settings.addressAttemptsPerMinute,
      ADDRESS_WINDOW_MS,
      now,
    );
    if (decision.kind === 'throttled') {
      throw rateLimited('too many attempts from this network address', decision.retryAfterMs);
    }
  }

  /**
   * Counts a password attempt against its throttle (see passwordThrottleKey) before any hashing;
   * 429 past the budget, whether or not the address has an account.
   */
  async function chargePasswordAttempt(key: string): Promise<void> {
    const now = clock.now();
    const window = await repo.hitThrottle(db, key, PASSWORD_FAILURE_WINDOW_MS, now);
    const decision = decideThrottle(window, MAX_FAILED_PASSWORDS, PASSWORD_FAILURE_WINDOW_MS, now);
    if (decision.kind === 'throttled') {
      throw rateLimited('too many failed passwords for this e-mail address', decision.retryAfterMs);
    }
  }

  /** Checks a password, or does the same work for an address without an account (timing). */
  async function passwordMatches(account: AccountRow | undefined, password: string) {
    if (account?.password_hash) return verifyPassword(account.password_hash, password);
    dummyHash ??= hashPassword(generateToken('dummy_'));
    await verifyPassword(await dummyHash, password);
    return false;
  }

  async function sendCode(
    account: AccountRow,
    purpose: CodePurpose,
    sessionId: string | null,
    client: ClientContext,
  ) {
    const now = clock.now();
    const since = now - CODE_SEND_WINDOW_MS;
    const sent = await repo.codesSentSince(db, account.id, purpose, since);
    if (sent.count >= CODES_PER_SEND_WINDOW) {
      throw rateLimited(
        'too many codes requested',
        (sent.oldest ?? now) + CODE_SEND_WINDOW_MS - now,
      );
    }
    const code = generateCode();
    await repo.replaceCode(db, {
      id: randomUUID(),
      account_id: account.id,
      purpose,
      session_id: sessionId,
      code_hmac: codeDigest(secrets.codeHmacKey, code, {
        purpose,
        accountId: account.id,
        sessionId,
      }),
      created_at: now,
      expires_at: now + CODE_TTL_MS,
      consumed_at: null,
      replaced_at: null,
    });
    try {
      await mailer.send({ to: account.email, ...codeMail(purpose, code) });
    } catch (error) {
      throw new ApiError(
        'service_unavailable',
        'the code could not be e-mailed; retry shortly',
        { 'retry-after': '30' },
        error,
      );
    }
    await audit(account.id, 'code.sent', client, { purpose });
  }

  /**
   * Redeems a code: one try is taken atomically, then the code is spent by one guarded UPDATE. A
   * wrong code counts only against the code it was tried on (five tries burn it); with no code
   * pending there is nothing to count, so nobody without the mailbox can lock anything.
   */
  async function redeemCode(
    account: AccountRow,
    purpose: CodePurpose,
    sessionId: string | null,
    code: string,
  ) {
    const now = clock.now();
    const open = await repo.findOpenCode(db, { accountId: account.id, purpose, sessionId }, now);
    const tried = open ? await repo.takeCodeAttempt(db, open.id, CODE_MAX_ATTEMPTS) : false;
    const matches =
      open !== undefined &&
      tried &&
      digestsEqual(
        open.code_hmac,
        codeDigest(secrets.codeHmacKey, code, { purpose, accountId: account.id, sessionId }),
      );
    if (!matches || !(await repo.consumeCode(db, open.id, now))) throw invalidCode();
  }

  async function issueSession(accountId: string): Promise<IssuedSession> {
    const now = clock.now();
    const token = generateToken(SESSION_TOKEN_PREFIX);
    const expiresAt = now + settings.sessionAbsoluteMs;
    await repo.insertSession(db, {
      id: randomUUID(),
      account_id: accountId,
      token_hash: sha256Hex(token),
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
      step_up_until: null,
      ended_at: null,
    });
    await repo.endSessionsBeyond(db, accountId, MAX_SESSIONS_PER_ACCOUNT, now);
    return { token, expiresAt: iso(expiresAt) };
  }

  /** A trusted-device token that is the account's, live and unrevoked; anything else is ignored. */
  async function validDevice(accountId: string, deviceToken: string | undefined, now: number) {
    if (
      !deviceToken ||
      !TOKEN_PATTERN.test(deviceToken) ||
      !deviceToken.startsWith(DEVICE_TOKEN_PREFIX)
    )
      return undefined;
    const device = await repo.findDeviceByHash(db, sha256Hex(deviceToken));
    if (
      !device ||
      device.account_id !== accountId ||
      device.revoked_at !== null ||
      device.expires_at <= now
    ) {
      return undefined;
    }
    return device;
  }

  function requireStepUp(principal: SessionPrincipal): void {
    if (principal.stepUpUntil === null || principal.stepUpUntil <= clock.now()) {
      throw new ApiError(
        'step_up_required',
        'this action needs a step-up code: POST /developer/auth/step-up first',
      );
    }
  }

  async function ownKey(principal: SessionPrincipal, keyId: string) {
    const key = await repo.findSealedKey(db, keyId);
    if (!key || key.account_id !== principal.accountId) {
      throw new ApiError('not_found', `no key ${keyId} on this account`);
    }
    return key;
  }

  return {
    /**
     * Spec: password login; a valid trusted-device token skips the e-mailed code. Until the
     * password is proven, a real and an unknown address get the same answers (see lockout.ts).
     */
    async login(
      input: { email: string; password: string; deviceToken?: string },
      client: ClientContext,
    ): Promise<{ status: 'code_sent' } | { status: 'authenticated'; session: IssuedSession }> {
      await throttleAddress('login', client);
      const now = clock.now();
      const email = normalizeEmail(input.email);
      const account = await findAccountByEmail(db, email);
      const device = account ? await validDevice(account.id, input.deviceToken, now) : undefined;
      const throttleKey = passwordThrottleKey(email, device?.id);
      await chargePasswordAttempt(throttleKey);
      const passwordOk = await passwordMatches(account, input.password);
      if (!account || !passwordOk || account.deactivated_at !== null) {
        if (account) await audit(account.id, 'login.failed', client);
        throw invalidCredentials();
      }
      await repo.clearThrottle(db, throttleKey);
      switch (
        decideSignIn({
          lockedAt: account.locked_at,
          unredeemedLoginCodes: account.unredeemed_login_codes,
        })
      ) {
        case 'locked':
          throw accountLocked();
        case 'lock_now':
          await repo.lockAccount(db, account.id, now);
          await audit(account.id, 'account.locked', client);
          throw accountLocked();
        case 'open':
          break;
      }
      if (needsRehash(account.password_hash as string)) {
        await repo.setPassword(
          db,
          account.id,
          await hashPassword(input.password),
          account.must_change_password === 1,
        );
      }
      if (device) {
        await repo.markDeviceUsed(db, device.id, now);
        await repo.clearUnredeemedLoginCodes(db, account.id);
        const session = await issueSession(account.id);
        await audit(account.id, 'login', client, { via: 'trusted_device', deviceId: device.id });
        return { status: 'authenticated', session };
      }
      await sendCode(account, 'login', null, client);
      await repo.countUnredeemedLoginCode(db, account.id);
      return { status: 'code_sent' };
    },

    /** Exchanges the e-mailed code for a session; optionally trusts this device for 30 days. */
    async verifyOtp(
      input: { email: string; code: string; rememberDevice?: boolean; deviceLabel?: string },
      client: ClientContext,
    ) {
      await throttleAddress('verify', client);
      const now = clock.now();
      const account = await findAccountByEmail(db, normalizeEmail(input.email));
      // A locked account answers like any address with no code pending: its state is told only
      // to a request that proved the password (see login).
      if (!account || account.deactivated_at !== null || account.locked_at !== null) {
        throw invalidCode();
      }
      await redeemCode(account, 'login', null, input.code);
      await repo.clearUnredeemedLoginCodes(db, account.id);
      const session = await issueSession(account.id);
      await audit(account.id, 'login', client, { via: 'code' });
      if (!input.rememberDevice) return { session };

      const token = generateToken(DEVICE_TOKEN_PREFIX);
      const label =
        (input.deviceLabel ?? client.deviceLabel ?? 'unknown device')
          .trim()
          .slice(0, MAX_DEVICE_LABEL_LENGTH) || 'unknown device';
      const device = { id: randomUUID(), label, expiresAt: now + DEVICE_TTL_MS };
      await repo.insertDevice(db, {
        id: device.id,
        account_id: account.id,
        token_hash: sha256Hex(token),
        label,
        created_at: now,
        last_used_at: null,
        expires_at: device.expiresAt,
        revoked_at: null,
      });
      const live = await repo.listLiveDevices(db, account.id, now);
      for (const old of live.slice(0, Math.max(0, live.length - MAX_DEVICES_PER_ACCOUNT))) {
        await repo.revokeDevice(db, account.id, old.id, now);
      }
      await audit(
        account.id,
        'device.trusted',
        { ...client, deviceLabel: label },
        { deviceId: device.id },
      );
      return {
        session,
        trustedDevice: { id: device.id, token, label, expiresAt: iso(device.expiresAt) },
      };
    },

    /** The principal of a session token; 401 for a missing, unknown, expired, idle or ended one. */
    async authenticateSession(token: string | undefined): Promise<SessionPrincipal> {
      const unauthorized = new ApiError(
        'unauthorized',
        'a valid session is required: send Authorization: Bearer <session token>',
      );
      if (!token || !TOKEN_PATTERN.test(token) || !token.startsWith(SESSION_TOKEN_PREFIX))
        throw unauthorized;
      const session = await repo.findSessionByHash(db, sha256Hex(token));
      const now = clock.now();
      if (
        !session ||
        session.endedAt !== null ||
        session.expiresAt <= now ||
        session.lastSeenAt + settings.sessionIdleMs <= now ||
        session.deactivatedAt !== null ||
        session.lockedAt !== null
      ) {
        throw unauthorized;
      }
      await repo.touchSession(db, session.id, now);
      return {
        sessionId: session.id,
        accountId: session.accountId,
        email: session.email,
        mustChangePassword: session.mustChangePassword === 1,
        stepUpUntil: session.stepUpUntil,
      };
    },

    me(principal: SessionPrincipal) {
      const stepUp =
        principal.stepUpUntil !== null && principal.stepUpUntil > clock.now()
          ? principal.stepUpUntil
          : null;
      return {
        id: principal.accountId,
        email: principal.email,
        mustChangePassword: principal.mustChangePassword,
        stepUpValidUntil: stepUp === null ? null : iso(stepUp),
      };
    },

    async requestStepUp(principal: SessionPrincipal, client: ClientContext) {
      const account = await findAccountByEmail(db, principal.email);
      if (!account) throw new ApiError('unauthorized', 'the session has ended');
      await sendCode(account, 'step_up', principal.sessionId, client);
      return { status: 'code_sent' as const };
    },

    /** Elevates the current session for 10 minutes; the elevation ends with the session. */
    async redeemStepUp(principal: SessionPrincipal, code: string, client: ClientContext) {
      const account = await findAccountByEmail(db, principal.email);
      if (!account) throw new ApiError('unauthorized', 'the session has ended');
      await redeemCode(account, 'step_up', principal.sessionId, code);
      const validUntil = clock.now() + STEP_UP_TTL_MS;
      await repo.setStepUpUntil(db, principal.sessionId, validUntil);
      await audit(account.id, 'step_up', client);
      return { status: 'verified' as const, validUntil: iso(validUntil) };
    },

    async changePassword(
      principal: SessionPrincipal,
      input: { currentPassword: string; newPassword: string },
      client: ClientContext,
    ) {
      const now = clock.now();
      const account = await findAccountByEmail(db, principal.email);
      if (!account?.password_hash) throw new ApiError('unauthorized', 'the session has ended');
      const length = passwordLength(input.newPassword);
      if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
        throw new ApiError(
          'invalid_parameter',
          `newPassword must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
        );
      }
      const throttleKey = passwordThrottleKey(account.email);
      await chargePasswordAttempt(throttleKey);
      if (!(await verifyPassword(account.password_hash, input.currentPassword))) {
        throw new ApiError('invalid_credentials', 'currentPassword is wrong');
      }
      await repo.clearThrottle(db, throttleKey);
      if (input.newPassword.normalize('NFKC') === input.currentPassword.normalize('NFKC')) {
        throw new ApiError(
          'invalid_parameter',
          'newPassword must differ from the current password',
        );
      }
      if (isCommonPassword(input.newPassword)) {
        throw new ApiError(
          'invalid_parameter',
          'newPassword is one of the most common passwords; choose another',
        );
      }
      await repo.setPassword(db, account.id, await hashPassword(input.newPassword), false);
      await repo.endOtherSessions(db, account.id, principal.sessionId, now);
      await repo.revokeAllDevices(db, account.id, now);
      await audit(account.id, 'password.changed', client);
      return { status: 'password_changed' as const };
    },

    async listDevices(principal: SessionPrincipal) {
      const devices = await repo.listLiveDevices(db, principal.accountId, clock.now());
      return {
        data: devices.map((device) => ({
          id: device.id,
          label: device.label,
          createdAt: iso(device.created_at),
          lastUsedAt: device.last_used_at === null ? null : iso(device.last_used_at),
          expiresAt: iso(device.expires_at),
        })),
      };
    },

    async revokeDevice(principal: SessionPrincipal, deviceId: string, client: ClientContext) {
      if (!(await repo.revokeDevice(db, principal.accountId, deviceId, clock.now()))) {
        throw new ApiError('not_found', `no trusted device ${deviceId} on this account`);
      }
      await audit(principal.accountId, 'device.revoked', client, { deviceId });
      return { status: 'revoked' as const };
    },

    async listKeys(principal: SessionPrincipal) {
      const keys = await listKeys(store, clock, principal.email);
      return {
        data: keys.map((key) => ({
          id: key.id,
          name: key.name,
          hint: key.hint,
          status: key.status,
          createdAt: key.createdAt,
          expiresAt: key.expiresAt,
          lastUsedAt: key.lastUsedAt,
          campaigns: key.campaigns,
        })),
      };
    },

    /** Shows a key the operator sealed for the portal, once; the sealed copy is wiped as it is shown. */
    async revealKey(principal: SessionPrincipal, keyId: string, client: ClientContext) {
      requireStepUp(principal);
      const key = await ownKey(principal, keyId);
      if (key.revealed_at !== null)
        throw new ApiError('already_revealed', `key ${keyId} was already revealed`);
      if (key.sealed_key === null) {
        throw new ApiError(
          'not_revealable',
          `key ${keyId} was not issued for reveal in the portal`,
        );
      }
      const plaintext = openSealedKey(key.sealed_key, secrets.keySealKey, keyId);
      if (!(await repo.wipeSealedKey(db, keyId, clock.now()))) {
        throw new ApiError('already_revealed', `key ${keyId} was already revealed`);
      }
      await audit(principal.accountId, 'key.revealed', client, { keyId });
      return { key: plaintext };
    },

    async rotateKey(
      principal: SessionPrincipal,
      keyId: string,
      overlapHours: number,
      client: ClientContext,
    ) {
      requireStepUp(principal);
      await ownKey(principal, keyId);
      try {
        const rotated = await rotateKey(
          store,
          clock,
          keyId,
          overlapHours * 3_600_000,
          principal.accountId,
        );
        await audit(principal.accountId, 'key.rotated', client, { keyId, successor: rotated.id });
        return rotated;
      } catch (error) {
        if (error instanceof UsageError) throw new ApiError('conflict', error.message);
        throw error;
      }
    },
  };
}

export type PortalService = ReturnType<typeof createPortalService>;
