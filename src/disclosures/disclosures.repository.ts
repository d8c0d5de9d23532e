import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { type Disclosure, type Door, isDoor } from './disclosure.ts';
import { idNeedle } from './id-list.ts';

/**
 * Writes answers' lines of the record in one statement: on PostgreSQL the columns as arrays
 * (one statement text whatever the count, and the cheapest insert for the primary to parse), on
 * SQLite as one multi-row insert.
 */
export async function insertDisclosures(
  store: Store,
  disclosures: readonly Disclosure[],
): Promise<void> {
  if (disclosures.length === 0) return;
  const rows = disclosures.map((disclosure) => ({
    at: disclosure.at,
    account_id: disclosure.recipient.accountId,
    lineage_id: disclosure.recipient.lineageId,
    key_id: disclosure.recipient.keyId,
    door: disclosure.door,
    campaign_id: disclosure.campaignId,
    fields: JSON.stringify(disclosure.fields),
    row_ids: disclosure.rowIds as string,
    removal_ids: disclosure.removalIds as string,
  }));
  if (store.engine === 'sqlite') {
    await store.records.insertInto('disclosures').values(rows).execute();
    return;
  }
  const column = <K extends keyof (typeof rows)[number]>(name: K) => rows.map((row) => row[name]);
  const insert = sql`INSERT INTO disclosures
      (at, account_id, lineage_id, key_id, door, campaign_id, fields, row_ids, removal_ids)
    SELECT * FROM unnest(${column('at')}::bigint[], ${column('account_id')}::text[],
      ${column('lineage_id')}::text[], ${column('key_id')}::text[], ${column('door')}::text[],
      ${column('campaign_id')}::text[], ${column('fields')}::text[], ${column('row_ids')}::text[],
      ${column('removal_ids')}::text[])`.compile(store.db);
  // The same text whatever the count: prepared once per connection, parsed and planned once.
  store.statements.add(insert.sql, 'objects');
  await store.records.executeQuery(insert);
}

/** A line of the record as its reports read it: never its whole id lists. */
export interface DisclosureLine {
  id: number;
  at: number;
  accountId: string;
  lineageId: string;
  keyId: string;
  door: Door;
  campaignId: string;
  fields: string[];
}

/** A line that names one respondent, and how: with their row, or as removed. */
export interface NamingLine extends DisclosureLine {
  withRow: boolean;
  asRemoved: boolean;
}

function lineOf(row: {
  id: number | string;
  at: number | string;
  account_id: string;
  lineage_id: string;
  key_id: string;
  door: string;
  campaign_id: string;
  fields: string;
}): DisclosureLine {
  if (!isDoor(row.door)) throw new Error(`the disclosure record names an unknown door`);
  return {
    id: Number(row.id),
    at: Number(row.at),
    accountId: row.account_id,
    lineageId: row.lineage_id,
    keyId: row.key_id,
    door: row.door,
    campaignId: row.campaign_id,
    fields: JSON.parse(row.fields) as string[],
  };
}

const LINE_COLUMNS = [
  'id',
  'at',
  'account_id',
  'lineage_id',
  'key_id',
  'door',
  'campaign_id',
  'fields',
] as const;

/**
 * Every line of the record that names `respondentId`, oldest first: in `campaignId` (by its
 * index), or in every campaign when the respondent's campaign is no longer known. The lists are
 * searched where they lie; only the lines that name the respondent leave the store.
 */
export async function findLinesNaming(
  store: Store,
  respondentId: string,
  campaignId: string | undefined,
): Promise<NamingLine[]> {
  const needle = idNeedle(respondentId);
  const found = (column: 'row_ids' | 'removal_ids') =>
    store.engine === 'postgres'
      ? sql<boolean>`strpos(${sql.ref(column)}, ${needle}) > 0`
      : sql<boolean>`instr(${sql.ref(column)}, ${needle}) > 0`;
  let query = store.db
    .selectFrom('disclosures')
    .select(LINE_COLUMNS)
    .select([found('row_ids').as('with_row'), found('removal_ids').as('as_removed')])
    .where((eb) => eb.or([found('row_ids'), found('removal_ids')]));
  if (campaignId !== undefined) query = query.where('campaign_id', '=', campaignId);
  const rows = await query.orderBy('id').execute();
  return rows.map((row) => ({
    ...lineOf(row),
    withRow: Boolean(row.with_row),
    asRemoved: Boolean(row.as_removed),
  }));
}

/** A line of a key chain's record with the respondents it carried. */
export interface LineWithIds extends DisclosureLine {
  rowIds: string;
  removalIds: string;
}

/** Lines of the record read at a time for a key chain's report. */
const LINEAGE_BATCH = 1_000;

/**
 * Every line of a key chain's record from `from` (inclusive) to `to` (exclusive), oldest first,
 * read a batch at a time by its index, so memory stays flat whatever the chain received.
 */
export async function* linesOfLineage(
  db: Kysely<Database>,
  lineageId: string,
  window: { from: number; to: number },
): AsyncGenerator<LineWithIds> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('disclosures')
      .select([...LINE_COLUMNS, 'row_ids', 'removal_ids'])
      .where('lineage_id', '=', lineageId)
      .where('id', '>', after)
      .where('at', '>=', window.from)
      .where('at', '<', window.to)
      .orderBy('id')
      .limit(LINEAGE_BATCH)
      .execute();
    for (const row of rows) {
      yield { ...lineOf(row), rowIds: row.row_ids, removalIds: row.removal_ids };
    }
    const last = rows.at(-1);
    if (!last || rows.length < LINEAGE_BATCH) return;
    after = Number(last.id);
  }
}

/** Lines deleted at a time by purgeDisclosuresBefore. */
const PURGE_BATCH = 5_000;

/**
 * Forgets the lines older than `cutoff`, oldest first, a batch at a time: the record grows in
 * time order, so the oldest lines lead its primary key and no index on time is needed. A line
 * behind a newer one (nodes' clocks differ a little) goes at a later run. Returns how many went.
 */
export async function purgeDisclosuresBefore(
  db: Kysely<Database>,
  cutoff: number,
): Promise<number> {
  let purged = 0;
  for (;;) {
    const oldest = db.selectFrom('disclosures').select('id').orderBy('id').limit(PURGE_BATCH);
    const result = await db
      .deleteFrom('disclosures')
      .where('id', 'in', oldest)
      .where('at', '<', cutoff)
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    purged += deleted;
    if (deleted < PURGE_BATCH) return purged;
  }
}
