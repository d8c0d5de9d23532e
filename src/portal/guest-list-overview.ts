import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { findScopesOfKeys, listKeyRows } from '../keys/keys.repository.ts';
import { type KeyState, keyState } from './key-overview.ts';

/** What the guest lists need of a key: its name, its state, and the campaigns it reads. */
export interface ReadingKey {
  id: string;
  name: string;
  state: KeyState;
  campaigns: Array<{ id: string }>;
}

/** One campaign an account may read, as its guest-list page shows it. */
export interface GuestListEntry {
  campaignId: string;
  title: string;
  guests: number;
  attending: number;
  /** The newest write to the campaign or its guests (a guest added, changed or removed). */
  lastChangeAt: number;
  /** The keys in force that read it, newest first: its downloads go through them. */
  keys: Array<{ id: string; name: string }>;
}

/** Whether a key still reads data: what a guest list can be downloaded with. */
export const readsData = (key: Pick<ReadingKey, 'state'>): boolean =>
  key.state.kind !== 'expired' && key.state.kind !== 'revoked';

/**
 * Each live campaign the account's keys in force read, by title, with the keys that read it. A key
 * rotating out is left out where its successor (or another key) reads the same campaign: the
 * organiser needs one download, not one per key of a rotation.
 */
export async function guestListOverview(
  db: Kysely<Database>,
  keys: ReadingKey[],
): Promise<GuestListEntry[]> {
  const readers = new Map<string, ReadingKey[]>();
  for (const key of keys.filter(readsData)) {
    for (const campaign of key.campaigns) {
      readers.set(campaign.id, [...(readers.get(campaign.id) ?? []), key]);
    }
  }
  if (readers.size === 0) return [];
  const rows = await db
    .selectFrom('campaigns as c')
    .select((eb) => [
      'c.id',
      'c.title',
      'c.response_count',
      'c.attending_count',
      'c.updated_at',
      // Both maxima come from the feeds' (campaign_id, time, …) indexes.
      eb
        .selectFrom('respondent_changes as rc')
        .select((inner) => inner.fn.max('rc.changed_at').as('at'))
        .whereRef('rc.campaign_id', '=', 'c.id')
        .as('last_write'),
      eb
        .selectFrom('removals as r')
        .select((inner) => inner.fn.max('r.removed_at').as('at'))
        .whereRef('r.campaign_id', '=', 'c.id')
        .as('last_removal'),
    ])
    .where('c.id', 'in', [...readers.keys()])
    .where('c.deleted_at', 'is', null)
    .execute();
  return rows
    .map((row) => {
      const all = readers.get(row.id) ?? [];
      const settled = all.filter((key) => key.state.kind !== 'rotating_out');
      return {
        campaignId: row.id,
        title: row.title,
        guests: Number(row.response_count),
        attending: Number(row.attending_count),
        lastChangeAt: Math.max(
          Number(row.updated_at),
          Number(row.last_write ?? 0),
          Number(row.last_removal ?? 0),
        ),
        keys: (settled.length > 0 ? settled : all).map((key) => ({ id: key.id, name: key.name })),
      };
    })
    .sort((a, b) => a.title.localeCompare(b.title) || a.campaignId.localeCompare(b.campaignId));
}

/**
 * The account's keys as the guest lists need them, newest first: two reads (the keys, their
 * scopes), not the key pages' overview with its usage and field labels.
 */
export async function readingKeys(
  db: Kysely<Database>,
  accountId: string,
  now: number,
): Promise<ReadingKey[]> {
  const rows = (await listKeyRows(db, accountId)).reverse();
  const scopes = await findScopesOfKeys(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    state: keyState(row, now),
    campaigns: (scopes.get(row.id) ?? []).map((scope) => ({ id: scope.campaignId })),
  }));
}
