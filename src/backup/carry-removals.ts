import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { deleteCampaign, eraseRespondents } from '../removals/erasure.service.ts';

type Named = { campaignId: string; id: string };

/** Who a database had removed and still remembers removing, and the campaigns it deleted. */
export interface Removed {
  respondents: Named[];
  campaigns: string[];
}

/** Respondents erased per statement: well under SQLite's bound on parameters. */
const CHUNK = 500;

/** What `db` removed: tombstones without a row, and deleted campaigns. */
export async function readRemoved(db: Kysely<Database>): Promise<Removed> {
  const respondents = await db
    .selectFrom('removals as r')
    .select(['r.campaign_id as campaignId', 'r.respondent_id as id'])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('respondents as x').select('x.id').whereRef('x.id', '=', 'r.respondent_id'),
        ),
      ),
    )
    .execute();
  const campaigns = await db
    .selectFrom('campaigns')
    .select('id')
    .where('deleted_at', 'is not', null)
    .execute();
  return { respondents, campaigns: campaigns.map((row) => row.id) };
}

/** What the SQLite file a restore replaced had removed (read only; the file is left as it is). */
export async function removedInFile(path: string): Promise<Removed> {
  const database = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  try {
    return await readRemoved(db);
  } finally {
    await db.destroy();
  }
}

/** What a restore carried forward. */
export interface Carried {
  respondents: number;
  campaigns: number;
}

/**
 * Removes again, in a restored database, what was removed after its backup was made: a restore
 * brings back the data of its day, never a person who was erased since (UU PDP), nor a campaign
 * deleted since. Each goes as an operator's erasure or deletion does, with tombstones, so
 * partners' mirrors drop them too.
 */
export async function carryRemovalsForward(
  store: Store,
  clock: Clock,
  removed: Removed,
): Promise<Carried> {
  let campaigns = 0;
  const live = await store.db
    .selectFrom('campaigns')
    .select('id')
    .where('deleted_at', 'is', null)
    .execute();
  const liveIds = new Set(live.map((row) => row.id));
  for (const campaignId of removed.campaigns) {
    if (!liveIds.has(campaignId)) continue;
    await deleteCampaign(store, clock, campaignId);
    campaigns += 1;
  }
  let respondents = 0;
  for (let start = 0; start < removed.respondents.length; start += CHUNK) {
    const chunk = removed.respondents.slice(start, start + CHUNK);
    const present = await store.db
      .selectFrom('respondents')
      .select(['campaign_id as campaignId', 'id'])
      .where(
        'id',
        'in',
        chunk.map((one) => one.id),
      )
      .execute();
    const wanted = new Set(chunk.map((one) => `${one.campaignId}\u0000${one.id}`));
    const found = present.filter((row) => wanted.has(`${row.campaignId}\u0000${row.id}`));
    if (found.length === 0) continue;
    await eraseRespondents(store, clock, found, 'restore');
    respondents += found.length;
  }
  return { respondents, campaigns };
}
