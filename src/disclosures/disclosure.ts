import type { IdList } from './id-list.ts';

/**
 * The ways respondents leave Hadir for a key, as the record and its reports name them:
 * - `api`: a respondents page of the data API;
 * - `changes`, `removals`: a page of the changes or the removals feed;
 * - `mcp`: any of those asked for by an MCP tool (hosted, or hadir-mcp on the partner's side);
 * - `download`: a guest-list file from the portal;
 * - `delivery`: a file of a scheduled delivery to a bucket;
 * - `notification`: a signed notification naming removed respondents.
 */
export const DOORS = [
  'api',
  'changes',
  'removals',
  'mcp',
  'download',
  'delivery',
  'notification',
] as const;
export type Door = (typeof DOORS)[number];

export function isDoor(value: string): value is Door {
  return (DOORS as readonly string[]).includes(value);
}

/** Who received an answer: the key, its rotation chain, and the account that holds them. */
export interface Recipient {
  keyId: string;
  lineageId: string;
  accountId: string;
}

/**
 * What an answer carried of respondents: the rows it handed over (each with the fields in force
 * that the respondent answered) and the ids it named as removed (an id, nothing else).
 */
export interface Disclosed {
  /** The field keys in force for the key in that campaign when it answered. */
  fields: readonly string[];
  rowIds: IdList;
  removalIds: IdList;
}

/** One line of the record: an answer, to whom, by which door, about which campaign, when. */
export interface Disclosure extends Disclosed {
  at: number;
  recipient: Recipient;
  door: Door;
  campaignId: string;
}

/** Whether an answer carried anyone at all. */
export function carriesAnyone(disclosed: Disclosed): boolean {
  return disclosed.rowIds !== '' || disclosed.removalIds !== '';
}
