import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { generateToken, sha256Hex } from '../secret-hash.ts';
import { iso, type PortalDeps } from './portal-context.ts';
import * as repo from './sessions.repository.ts';

export const SESSION_TOKEN_PREFIX = 'hadir_ses_';
const SESSION_TOKEN = /^hadir_ses_[0-9a-f]{64}$/;
/** An account keeps this many live sessions; a new one ends the oldest past it. */
export const MAX_SESSIONS_PER_ACCOUNT = 10;

/** The account and session behind a portal request. */
export interface SessionPrincipal {
  sessionId: string;
  accountId: string;
  email: string;
  mustChangePassword: boolean;
  stepUpUntil: number | null;
  /** The session's absolute end. */
  expiresAt: number;
}

export interface IssuedSession {
  token: string;
  expiresAt: string;
}

/** A new token for a live session (after a password change): the old token stops working. */
export function newSessionToken(): { token: string; tokenHash: string } {
  const token = generateToken(SESSION_TOKEN_PREFIX);
  return { token, tokenHash: sha256Hex(token) };
}

/** Portal sessions: a bearer token, stored as its hash, with idle and absolute lifetimes. */
export function createSessions(deps: PortalDeps) {
  const { store, clock, settings } = deps;
  const db = store.db;

  return {
    /** Opens a session, through `executor` when it is part of a larger change (a sign-in). */
    async issue(accountId: string, executor: Kysely<Database> = db): Promise<IssuedSession> {
      const now = clock.now();
      const token = generateToken(SESSION_TOKEN_PREFIX);
      const expiresAt = now + settings.sessionAbsoluteMs;
      await repo.insertSession(executor, {
        id: randomUUID(),
        account_id: accountId,
        token_hash: sha256Hex(token),
        created_at: now,
        last_seen_at: now,
        expires_at: expiresAt,
        step_up_until: null,
        ended_at: null,
      });
      await repo.endSessionsBeyond(executor, accountId, MAX_SESSIONS_PER_ACCOUNT, now);
      return { token, expiresAt: iso(expiresAt) };
    },

    /** The principal of a session token; 401 for a missing, unknown, expired, idle or ended one. */
    async authenticate(token: string | undefined): Promise<SessionPrincipal> {
      const unauthorized = new ApiError(
        'unauthorized',
        'a valid session is required: send Authorization: Bearer <session token>',
      );
      if (!token || !SESSION_TOKEN.test(token)) throw unauthorized;
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
        expiresAt: Number(session.expiresAt),
      };
    },

    /** Ends the calling session: its token and its step-up are gone. */
    async end(principal: SessionPrincipal) {
      await repo.endSession(db, principal.sessionId, clock.now());
      return { status: 'signed_out' as const };
    },

    /** Spec: the current session principal, with the end of its step-up while it lasts. */
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
  };
}

export type Sessions = ReturnType<typeof createSessions>;
