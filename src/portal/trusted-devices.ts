import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { generateToken, sha256Hex } from '../secret-hash.ts';
import { DAY_MS } from '../time-units.ts';
import * as repo from './devices.repository.ts';
import { type Audit, type ClientContext, iso, type PortalDeps } from './portal-context.ts';
import type { SessionPrincipal } from './sessions.ts';

export const DEVICE_TOKEN_PREFIX = 'hadir_dev_';
const DEVICE_TOKEN = /^hadir_dev_[0-9a-f]{64}$/;
/** Spec: a trusted-device token issued by verify-otp is valid 30 days. */
export const DEVICE_TTL_MS = 30 * DAY_MS;
/** An account keeps this many live devices; trusting one more revokes the oldest. */
export const MAX_DEVICES_PER_ACCOUNT = 20;
const MAX_DEVICE_LABEL_LENGTH = 100;

/** Devices whose token lets their holder sign in without an e-mailed code. */
export function createTrustedDevices(deps: PortalDeps, audit: Audit) {
  const { store, clock } = deps;
  const db = store.db;

  return {
    /** The device of a token that is the account's, live and unrevoked; anything else is none. */
    async findValid(accountId: string, token: string | undefined, now: number) {
      if (!token || !DEVICE_TOKEN.test(token)) return undefined;
      const device = await repo.findDeviceByHash(db, sha256Hex(token));
      if (
        !device ||
        device.account_id !== accountId ||
        device.revoked_at !== null ||
        device.expires_at <= now
      ) {
        return undefined;
      }
      return device;
    },

    async markUsed(deviceId: string, now: number, executor: Kysely<Database> = db): Promise<void> {
      await repo.markDeviceUsed(executor, deviceId, now);
    },

    /** Trusts the calling device for 30 days; its token is shown this once. */
    async trust(accountId: string, requestedLabel: string | undefined, client: ClientContext) {
      const now = clock.now();
      const token = generateToken(DEVICE_TOKEN_PREFIX);
      const label =
        (requestedLabel ?? client.deviceLabel ?? 'unknown device')
          .trim()
          .slice(0, MAX_DEVICE_LABEL_LENGTH) || 'unknown device';
      const device = { id: randomUUID(), label, expiresAt: now + DEVICE_TTL_MS };
      await repo.insertDevice(db, {
        id: device.id,
        account_id: accountId,
        token_hash: sha256Hex(token),
        label,
        created_at: now,
        last_used_at: null,
        expires_at: device.expiresAt,
        revoked_at: null,
      });
      const live = await repo.listLiveDevices(db, accountId, now);
      for (const old of live.slice(0, Math.max(0, live.length - MAX_DEVICES_PER_ACCOUNT))) {
        await repo.revokeDevice(db, accountId, old.id, now);
      }
      await audit(
        accountId,
        'device.trusted',
        { ...client, deviceLabel: label },
        { deviceId: device.id },
      );
      return { id: device.id, token, label, expiresAt: iso(device.expiresAt) };
    },

    async list(principal: SessionPrincipal) {
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

    /** Spec: revokes a trusted device; its next login requires a code. */
    async revoke(principal: SessionPrincipal, deviceId: string, client: ClientContext) {
      if (!(await repo.revokeDevice(db, principal.accountId, deviceId, clock.now()))) {
        throw new ApiError('not_found', `no trusted device ${deviceId} on this account`);
      }
      await audit(principal.accountId, 'device.revoked', client, { deviceId });
      return { status: 'revoked' as const };
    },

    async revokeAll(accountId: string, now: number): Promise<void> {
      await repo.revokeAllDevices(db, accountId, now);
    },
  };
}

export type TrustedDevices = ReturnType<typeof createTrustedDevices>;
