import type { Store } from '../db/store.ts';
import { DomainError } from '../errors.ts';
import type { Door } from './disclosure.ts';
import { linesOfLineage } from './disclosures.repository.ts';
import { idsIn } from './id-list.ts';
import { findChainOfKey, type NamedKey } from './report.repository.ts';

/** What a key's chain received of one respondent in a window. */
export interface ExposedRespondent {
  id: string;
  campaignId: string;
  /** The field keys in force whenever their row went, in the order first served. */
  fields: string[];
  first: number;
  last: number;
  /** How many answers carried them, by door. */
  doors: Map<Door, number>;
}

/** What a key's chain received in a window: its keys, and each respondent it was handed. */
export interface KeyExposure {
  /** The key asked about. */
  key: NamedKey;
  /** Every key of its rotation chain (all of which the record follows), oldest first. */
  chain: NamedKey[];
  window: { from: number; to: number };
  /** By respondent id; a respondent in two campaigns' lines (never, ids are unique) stays one. */
  respondents: Map<string, ExposedRespondent>;
  /** Answers read from the record. */
  lines: number;
}

/**
 * Everything the chain of `keyId` received from `from` to `to`: each respondent, in which
 * campaign, with which fields, when first and last, and how often by door. The record is read a
 * batch at a time; what is kept is one entry per respondent received.
 */
export async function reportOnKey(
  store: Store,
  keyId: string,
  window: { from: number; to: number },
): Promise<KeyExposure> {
  const chain = await findChainOfKey(store.db, keyId);
  const key = chain.find((each) => each.id === keyId);
  if (!key) throw new DomainError('not_found', `no key ${keyId}`);
  const respondents = new Map<string, ExposedRespondent>();
  let lines = 0;
  for await (const line of linesOfLineage(store.db, key.lineageId, window)) {
    lines++;
    const note = (id: string, withRow: boolean) => {
      let exposed = respondents.get(id);
      if (!exposed) {
        exposed = {
          id,
          campaignId: line.campaignId,
          fields: [],
          first: line.at,
          last: line.at,
          doors: new Map(),
        };
        respondents.set(id, exposed);
      }
      exposed.first = Math.min(exposed.first, line.at);
      exposed.last = Math.max(exposed.last, line.at);
      exposed.doors.set(line.door, (exposed.doors.get(line.door) ?? 0) + 1);
      if (!withRow) return;
      for (const field of line.fields) {
        if (!exposed.fields.includes(field)) exposed.fields.push(field);
      }
    };
    for (const id of idsIn(line.rowIds)) note(id, true);
    for (const id of idsIn(line.removalIds)) note(id, false);
  }
  return { key, chain, window, respondents, lines };
}
