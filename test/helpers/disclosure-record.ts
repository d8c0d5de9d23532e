import type { Store } from '../../src/db/connect.ts';
import { idsIn } from '../../src/disclosures/id-list.ts';

/** Every line of the disclosure record, oldest first, with its id lists read back. */
export async function recordOf(store: Store) {
  const rows = await store.db.selectFrom('disclosures').selectAll().orderBy('id').execute();
  return rows.map((row) => ({
    at: Number(row.at),
    accountId: row.account_id,
    lineageId: row.lineage_id,
    keyId: row.key_id,
    door: row.door,
    campaignId: row.campaign_id,
    fields: JSON.parse(row.fields) as string[],
    rows: idsIn(row.row_ids),
    removals: idsIn(row.removal_ids),
  }));
}
