import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database } from '../db/schema.ts';
import { keyStatus, lifetimeOf } from '../key-in-force.ts';
import { emptyUsageDay, jakartaDay } from '../keys/key-usage.ts';
import {
  findFieldsOfCampaigns,
  findLiveCampaigns,
  findScopesOfKeys,
  listKeyRows,
} from '../keys/keys.repository.ts';
import { readUsageDays, type UsageDay } from '../keys/usage-days.repository.ts';
import { DAY_MS } from '../time-units.ts';

/** A key this close to its end is shown as expiring soon, so its holder rotates in time. */
export const EXPIRING_SOON_MS = 14 * DAY_MS;
/** The usage chart's span, today included. */
export const USAGE_DAYS = 30;

/** What a holder is told about a key's state; the instants say until or since when. */
export type KeyState =
  | { kind: 'active'; until: number }
  | { kind: 'expiring_soon'; at: number }
  | { kind: 'rotating_out'; until: number }
  | { kind: 'expired'; at: number }
  | { kind: 'revoked'; at: number };

export function keyState(
  key: Pick<ApiKeyRow, 'revoked_at' | 'expires_at' | 'replaced_by_id'>,
  now: number,
): KeyState {
  switch (keyStatus(lifetimeOf(key), now)) {
    case 'revoked':
      return { kind: 'revoked', at: key.revoked_at ?? now };
    case 'expired':
      return { kind: 'expired', at: key.expires_at };
    case 'active':
      break;
  }
  // A rotated key keeps working for its overlap: its expiry was brought forward to the overlap's end.
  if (key.replaced_by_id !== null) return { kind: 'rotating_out', until: key.expires_at };
  if (key.expires_at - now <= EXPIRING_SOON_MS)
    return { kind: 'expiring_soon', at: key.expires_at };
  return { kind: 'active', until: key.expires_at };
}

export interface KeyOverview {
  id: string;
  name: string;
  hint: string;
  state: KeyState;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
  /** Issued for one reveal in the portal and not shown yet. */
  revealable: boolean;
  /** Live and not rotated yet: a successor can be issued. */
  rotatable: boolean;
  campaigns: Array<{
    id: string;
    /** Null when the campaign is gone: the scope still names it, but it serves nothing. */
    title: string | null;
    fields: Array<{ key: string; label: string }>;
  }>;
  /** One entry per day of the last USAGE_DAYS days (Asia/Jakarta), oldest first. */
  usage: UsageDay[];
}

function lastDays(now: number): string[] {
  return Array.from({ length: USAGE_DAYS }, (_, index) =>
    jakartaDay(now - (USAGE_DAYS - 1 - index) * DAY_MS),
  );
}

/** An account's keys, newest first, with their scope in words and their last 30 days of use. */
export async function keyOverview(
  db: Kysely<Database>,
  accountId: string,
  now: number,
): Promise<KeyOverview[]> {
  const rows = (await listKeyRows(db, accountId)).reverse();
  const ids = rows.map((row) => row.id);
  const scopes = await findScopesOfKeys(db, ids);
  const campaignIds = [...new Set([...scopes.values()].flat().map((scope) => scope.campaignId))];
  const campaigns = await findLiveCampaigns(db, campaignIds);
  const fields = await findFieldsOfCampaigns(db, campaignIds);
  const titles = new Map(campaigns.map((campaign) => [campaign.id, campaign.title]));
  const labels = new Map(
    fields.map((field) => [`${field.campaign_id}\u0000${field.key}`, field.label]),
  );
  const days = lastDays(now);
  const used = await readUsageDays(db, ids, days[0] as string);
  const usageOf = new Map(used.map((day) => [`${day.keyId}\u0000${day.day}`, day]));

  return rows.map((row) => {
    const state = keyState(row, now);
    return {
      id: row.id,
      name: row.name,
      hint: row.hint,
      state,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
      revealable: row.sealed_key !== null && row.revealed_at === null,
      rotatable:
        row.replaced_by_id === null && (state.kind === 'active' || state.kind === 'expiring_soon'),
      campaigns: (scopes.get(row.id) ?? []).map((scope) => ({
        id: scope.campaignId,
        title: titles.get(scope.campaignId) ?? null,
        fields: scope.fields.map((key) => ({
          key,
          label: labels.get(`${scope.campaignId}\u0000${key}`) ?? key,
        })),
      })),
      usage: days.map((day) => usageOf.get(`${row.id}\u0000${day}`) ?? emptyUsageDay(row.id, day)),
    };
  });
}
