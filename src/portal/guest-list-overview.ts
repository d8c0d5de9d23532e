import type { Kysely } from 'kysely';
import { findQuestionsOfCampaigns } from '../campaigns/campaigns.repository.ts';
import type { Database } from '../db/schema.ts';
import { findScopesOfKeys, listKeyRows } from '../keys/keys.repository.ts';
import { type KeyState, keyState } from './key-overview.ts';

/** What the guest lists need of a key: its name, its state, and the campaigns it reads. */
export interface ReadingKey {
  id: string;
  name: string;
  state: KeyState;
  /** Each campaign it reads, with the fields its allow-list names there. */
  campaigns: Array<{ id: string; fields: readonly string[] }>;
}

/**
 * One download of a campaign's guest list: the key it goes through, and, when the campaign's
 * keys give files that differ, what this one holds that another does not (`adds`) and what it
 * lacks that another holds (`lacks`), by the questions' labels in form order.
 */
export interface GuestListDownload {
  keyId: string;
  adds: string[];
  lacks: string[];
}

/** One campaign an account may read, as its guest-list page shows it. */
export interface GuestListEntry {
  campaignId: string;
  title: string;
  guests: number;
  attending: number;
  /** The newest write to the campaign or its guests (a guest added, changed or removed). */
  lastChangeAt: number;
  /**
   * One download for each different file the keys in force give (newest key first): one, unless
   * their allow-lists hand out different questions of it.
   */
  downloads: GuestListDownload[];
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
  const questions = await findQuestionsOfCampaigns(
    db,
    rows.map((row) => row.id),
  );
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
        downloads: downloadsOf(
          settled.length > 0 ? settled : all,
          row.id,
          questions.get(row.id) ?? [],
        ),
      };
    })
    .sort((a, b) => a.title.localeCompare(b.title) || a.campaignId.localeCompare(b.campaignId));
}

/**
 * The different files a campaign's keys give, one download each (the newest key of each), told
 * apart by the questions one holds and another lacks. A key's file holds the questions of the
 * form its allow-list names; two keys naming the same ones give the same file.
 */
function downloadsOf(
  keys: ReadingKey[],
  campaignId: string,
  form: ReadonlyArray<{ key: string; label: string }>,
): GuestListDownload[] {
  const files = new Map<string, { keyId: string; served: Set<string> }>();
  for (const key of keys) {
    const named = new Set(key.campaigns.find((campaign) => campaign.id === campaignId)?.fields);
    const served = new Set(form.filter((field) => named.has(field.key)).map((field) => field.key));
    const identity = [...served].join('\u0000');
    if (!files.has(identity)) files.set(identity, { keyId: key.id, served });
  }
  const all = [...files.values()];
  return all.map(({ keyId, served }) => {
    const others = all.filter((file) => file.keyId !== keyId);
    const labels = (keep: (key: string) => boolean) =>
      form.filter((field) => keep(field.key)).map((field) => field.label);
    return {
      keyId,
      adds: labels((key) => served.has(key) && others.some((file) => !file.served.has(key))),
      lacks: labels((key) => !served.has(key) && others.some((file) => file.served.has(key))),
    };
  });
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
    campaigns: (scopes.get(row.id) ?? []).map((scope) => ({
      id: scope.campaignId,
      fields: scope.fields,
    })),
  }));
}
