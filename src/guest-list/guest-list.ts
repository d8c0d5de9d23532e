import type { Writable } from 'node:stream';
import { recordAudit } from '../audit/audit.repository.ts';
import type { CampaignService, WholeCampaign } from '../campaigns/campaigns.service.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import type { DisclosureRecorder } from '../disclosures/disclosure-log.ts';
import { ApiError } from '../errors.ts';
import { chargeKey } from '../http/rate-limit.ts';
import type { RateLimitStore } from '../http/rate-limit-stores.ts';
import { jakartaDay, type KeyUsage } from '../keys/key-usage.ts';
import { type AuthenticatedKey, verifyKey } from '../keys/keys.service.ts';
import type { Speedups } from '../speedups.ts';
import {
  type GuestListFormat,
  type GuestListHeadings,
  writeGuestList,
} from './guest-list-files.ts';

export type { GuestListFormat };

import { writeOnThread } from './written-on-a-thread.ts';

export interface GuestListDeps {
  store: Store;
  clock: Clock;
  campaigns: CampaignService;
  keyUsage: KeyUsage;
  /** Where the file's rows are recorded as handed over, before they are written. */
  disclosures: DisclosureRecorder;
  /** The data API's rate limit, whose budget a download spends like any request of the key. */
  rateLimit: { store: RateLimitStore; perKeyPerMinute: number };
  /** Whether files are written on a thread of their own ('file-thread'). */
  speedups: Speedups;
}

/** Who asks for a file, and from where (for the audit line). */
export interface GuestListRequest {
  accountId: string;
  address: string;
  keyId: string;
  campaignId: string;
  format: GuestListFormat;
}

/** The name a file is saved under: the campaign's slug and the day, in Jakarta. */
export function guestListFileName(
  campaign: WholeCampaign['campaign'],
  now: number,
  format: GuestListFormat,
): string {
  const safe = campaign.slug.replace(/[^A-Za-z0-9._-]+/g, '-') || campaign.id;
  return `${safe}-${jakartaDay(now)}.${format}`;
}

/** A campaign opened for one file: what the key reads of it, and how to end the download. */
export interface OpenGuestList extends WholeCampaign {
  /**
   * Writes the file to `out` (left open for its owner); resolves with the rows written, which
   * `written` hears as they grow.
   */
  write(
    headings: GuestListHeadings,
    out: Writable,
    written: (rows: number) => void,
  ): Promise<number>;
  /** Counts the download in the key's usage (one request, its rows) and audits it, without values. */
  finish(outcome: { rows: number; complete: boolean }): Promise<void>;
}

/**
 * Files one account may have written at once. Each file reads a whole campaign through the
 * serving thread, and takes a core to write (docs/performance.md, Guest-list downloads).
 */
export const FILES_AT_ONCE_PER_HOLDER = 1;

/** The account already has FILES_AT_ONCE_PER_HOLDER files being written. */
export class HolderBusy extends ApiError {
  constructor() {
    super(
      'rate_limited',
      `a guest list is being written for this account (at most ${FILES_AT_ONCE_PER_HOLDER} at once); try again once it has finished`,
      { 'retry-after': '5' },
    );
  }
}

/**
 * A key's guest list as a file, for its signed-in holder: the same key, scope, allow-list, rate
 * limit and usage as a data request of that key, through the portal instead of a bearer token.
 * Another account's key is not found; a key no longer in force reads nothing.
 */
export function createGuestLists(deps: GuestListDeps) {
  const { store, clock } = deps;
  /** Files being written, per account. */
  const writing = new Map<string, number>();

  /** The holder's key, by the policy every read of a key takes (see verifyKey). */
  async function keyOf(accountId: string, keyId: string): Promise<AuthenticatedKey> {
    const verification = await verifyKey(store, { holder: accountId, keyId }, clock.now());
    switch (verification.kind) {
      case 'valid':
        return verification.key;
      case 'revoked':
      case 'expired':
        throw new ApiError(
          'forbidden',
          `key ${keyId} is ${verification.kind}: it reads nothing any more`,
        );
      case 'account_deactivated':
        throw new ApiError('forbidden', 'this account is deactivated: its keys read nothing');
      default:
        throw new ApiError('not_found', `no key ${keyId} on this account`);
    }
  }

  return {
    async open(request: GuestListRequest): Promise<OpenGuestList> {
      const key = await keyOf(request.accountId, request.keyId);
      const busy = writing.get(request.accountId) ?? 0;
      if (busy >= FILES_AT_ONCE_PER_HOLDER) throw new HolderBusy();
      const access = await deps.campaigns.resolve(key, request.campaignId, 'record');
      const whole = await deps.campaigns.everyRespondent(access, {
        recipient: { keyId: key.id, lineageId: key.lineageId, accountId: key.accountId },
        door: 'download',
        disclosures: deps.disclosures,
        now: () => clock.now(),
      });
      try {
        await chargeKey(deps.rateLimit.store, key, deps.rateLimit.perKeyPerMinute);
      } catch (refusal) {
        deps.keyUsage.count(key.id, clock.now(), 429, 0);
        throw refusal;
      }
      writing.set(request.accountId, busy + 1);
      let finished = false;
      const write = deps.speedups.on('file-thread') ? writeOnThread : writeGuestList;
      return {
        ...whole,
        write(headings, out, written) {
          return write(request.format, whole, headings, out, written);
        },
        async finish({ rows, complete }) {
          if (!finished) {
            finished = true;
            const left = (writing.get(request.accountId) ?? 1) - 1;
            if (left > 0) writing.set(request.accountId, left);
            else writing.delete(request.accountId);
          }
          deps.keyUsage.count(key.id, clock.now(), 200, rows);
          await recordAudit(
            store.db,
            {
              actor: request.accountId,
              action: 'guest_list.downloaded',
              target: key.id,
              details: {
                address: request.address,
                campaignId: request.campaignId,
                format: request.format,
                rows,
                complete,
              },
            },
            clock.now(),
          );
        },
      };
    },
  };
}

export type GuestLists = ReturnType<typeof createGuestLists>;
