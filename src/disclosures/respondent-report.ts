import type { Store } from '../db/store.ts';
import type { Door } from './disclosure.ts';
import { findLinesNaming, type NamingLine } from './disclosures.repository.ts';
import {
  type Departure,
  findDeparture,
  findFirstDeliveryAfter,
  findHeldRespondent,
  findNamedCampaigns,
  findNamedKeys,
  type HeldRespondent,
  type NamedCampaign,
} from './report.repository.ts';

/** One door by which a key received the respondent: which fields, first and last time, how often. */
export interface DoorUse {
  door: Door;
  /** The field keys in force when their row went (none for a removal named, ids only). */
  fields: string[];
  first: number;
  last: number;
  count: number;
  /** Whether any of its answers carried the respondent's row (else only their id, as removed). */
  carriedRow: boolean;
}

/**
 * Whether the respondent's removal reached a recipient, and how: its mirror read a feed that
 * named it, a notification named it, or its bucket's next delivery left them out; and the files
 * it took before, which nothing can recall.
 */
export interface RemovalReach {
  reached: { door: Door; at: number } | undefined;
  /** When each file that held the respondent was downloaded (before the removal). */
  filesTaken: number[];
}

/** A key that received the respondent, named by identity (UU PDP Pasal 32, GDPR Art. 15(1)(c)). */
export interface Recipient {
  accountEmail: string;
  organisation: string | null;
  keyId: string;
  keyLabel: string;
  doors: DoorUse[];
  /** Present when the respondent left: whether that reached this recipient. */
  removalReached?: RemovalReach;
}

/** Everything an access request is answered with, about this respondent alone. */
export interface RespondentReport {
  respondentId: string;
  /** Their row as Hadir holds it now, or undefined when it is gone. */
  held: HeldRespondent | undefined;
  /** How they left, when they did and Hadir still knows. */
  departure: Departure | undefined;
  campaign: NamedCampaign | undefined;
  recipients: Recipient[];
}

/** Doors of a feed: a mirror that reads them past a removal drops the respondent. */
const FEED_DOORS: ReadonlySet<Door> = new Set(['changes', 'removals', 'mcp', 'notification']);

/**
 * The report on one respondent: their data as held now (or how they left), and every key that
 * received them, by door, with the fields, times and counts; for each, whether their removal
 * reached it. It reads the record's lines that name this respondent and nothing of anyone else.
 */
export async function reportOnRespondent(
  store: Store,
  respondentId: string,
): Promise<RespondentReport> {
  const held = await findHeldRespondent(store.db, respondentId);
  const departure = held ? undefined : await findDeparture(store.db, respondentId);
  const campaignId = held?.campaignId ?? departure?.campaignId;
  const lines = await findLinesNaming(store, respondentId, campaignId);
  const keys = await findNamedKeys(store.db, [...new Set(lines.map((line) => line.keyId))]);
  const campaigns = await findNamedCampaigns(
    store,
    campaignId !== undefined ? [campaignId] : [...new Set(lines.map((line) => line.campaignId))],
  );
  const byKey = new Map<string, NamingLine[]>();
  for (const line of lines) {
    const own = byKey.get(line.keyId);
    if (own) own.push(line);
    else byKey.set(line.keyId, [line]);
  }
  const recipients: Recipient[] = [];
  for (const [keyId, own] of byKey) {
    const key = keys.get(keyId);
    const recipient: Recipient = {
      accountEmail: key?.accountEmail ?? `(account ${own[0]?.accountId ?? 'unknown'})`,
      organisation: key?.organisation ?? null,
      keyId,
      keyLabel: key?.label ?? '(key deleted)',
      doors: doorUses(own),
    };
    if (departure) {
      recipient.removalReached = await removalReach(store, own, departure);
    }
    recipients.push(recipient);
  }
  recipients.sort((a, b) => (a.doors[0]?.first ?? 0) - (b.doors[0]?.first ?? 0));
  return {
    respondentId,
    held,
    departure,
    campaign:
      campaignId !== undefined ? campaigns.get(campaignId) : campaigns.values().next().value,
    recipients,
  };
}

/** A key's lines, by door: fields in the order first served, first and last time, count. */
function doorUses(lines: readonly NamingLine[]): DoorUse[] {
  const uses = new Map<Door, DoorUse>();
  for (const line of lines) {
    let use = uses.get(line.door);
    if (!use) {
      use = {
        door: line.door,
        fields: [],
        first: line.at,
        last: line.at,
        count: 0,
        carriedRow: false,
      };
      uses.set(line.door, use);
    }
    use.count += 1;
    use.first = Math.min(use.first, line.at);
    use.last = Math.max(use.last, line.at);
    if (!line.withRow) continue;
    use.carriedRow = true;
    for (const field of line.fields) if (!use.fields.includes(field)) use.fields.push(field);
  }
  return [...uses.values()].sort((a, b) => a.first - b.first);
}

/**
 * Whether a removal reached a key's holder: the first line after it that named it as removed (a
 * feed page or a notification), or the first delivery to its bucket that started after it, when
 * the bucket had held the respondent. Files downloaded before it cannot be recalled.
 */
async function removalReach(
  store: Store,
  lines: readonly NamingLine[],
  departure: Departure,
): Promise<RemovalReach> {
  const candidates: Array<{ door: Door; at: number }> = [];
  const named = lines.find(
    (line) => line.asRemoved && line.at >= departure.at && FEED_DOORS.has(line.door),
  );
  if (named) candidates.push({ door: named.door, at: named.at });
  const delivered = lines.find((line) => line.door === 'delivery' && line.withRow);
  if (delivered) {
    const next = await findFirstDeliveryAfter(store.db, delivered.lineageId, departure.at);
    if (next !== undefined) candidates.push({ door: 'delivery', at: next });
  }
  candidates.sort((a, b) => a.at - b.at);
  return {
    reached: candidates[0],
    filesTaken: lines
      .filter((line) => line.door === 'download' && line.withRow)
      .map((line) => line.at),
  };
}
