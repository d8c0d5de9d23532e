// The disclosure record (src/disclosures), part of the Database of schema.ts.
import type { Generated } from 'kysely';

/**
 * One answer that handed respondents to a key: a page, a feed page, a part of a file, a
 * notification. Ids, names of fields and times: never an answer's value.
 */
export interface DisclosuresTable {
  id: Generated<number>;
  /** When the answer left (epoch ms). */
  at: number;
  account_id: string;
  /** The key's rotation chain (its first key's id). */
  lineage_id: string;
  key_id: string;
  /** How it left (see DOORS in src/disclosures/disclosure.ts). */
  door: string;
  campaign_id: string;
  /** JSON array of the field keys in force for the key there and then (the rows' fields). */
  fields: string;
  /** The respondents whose rows it carried, as an id list (see id-list.ts). */
  row_ids: string;
  /** The respondents it named as removed, ids only, as an id list. */
  removal_ids: string;
}
