import { userInfo } from 'node:os';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Scrub, Store } from '../db/store.ts';
import { DomainError } from '../errors.ts';
import { ChangeSet } from '../journal/change-set.ts';
import { endChange } from '../journal/end-change.ts';
import { answersMatch, needleOf } from './answer-match.ts';
import { holdErased, releaseHolds } from './erasure-holds.repository.ts';
import {
  findRespondentIdsIn,
  findRespondentsAfter,
  removeCampaign,
  removeRespondents,
} from './removals.repository.ts';

/** A respondent an erasure request names: where it is, never what it answered. */
export interface FoundRespondent {
  campaignId: string;
  id: string;
  submittedAt: number;
}

const SCAN_BATCH = 2_000;

/** The operator who ran a command, for the audit log. */
function operator(): string {
  try {
    return `operator:${userInfo().username}`;
  } catch {
    return 'operator';
  }
}

/**
 * Every respondent, in any campaign, with an answer equal to `value` (see answer-match.ts). A
 * full scan in batches by id: erasure requests are rare, and their values are never indexed.
 */
export async function findRespondentsByValue(
  store: Store,
  value: string,
): Promise<FoundRespondent[]> {
  const needle = needleOf(value);
  const found: FoundRespondent[] = [];
  let after = '';
  for (;;) {
    const rows = await findRespondentsAfter(store.db, after, SCAN_BATCH);
    for (const row of rows) {
      if (answersMatch(needle, row.answers)) {
        found.push({ campaignId: row.campaign_id, id: row.id, submittedAt: row.submitted_at });
      }
    }
    const last = rows.at(-1);
    if (!last || rows.length < SCAN_BATCH) return found;
    after = last.id;
  }
}

/**
 * Lifts the erasure holds on these ids, so that the platform's next version of each is applied
 * again (the person asked to come back, or was erased by mistake). Returns how many were held.
 */
export async function releaseErased(
  store: Store,
  clock: Clock,
  ids: readonly string[],
): Promise<number> {
  return store.db.transaction().execute(async (trx) => {
    const released = await releaseHolds(trx, ids);
    await recordAudit(
      trx,
      {
        actor: operator(),
        action: 'respondents.release',
        details: { count: released, respondents: [...ids] },
      },
      clock.now(),
    );
    return released;
  });
}

/** What an erasure did: the ids it removed, and where their bytes may still be (see Scrub). */
export interface Erasure {
  erased: Array<{ campaignId: string; id: string }>;
  scrub: Scrub;
}

/**
 * Erases respondents, each with its tombstone, so every partner's mirror loses them at its next
 * sync; totals and breakdowns stay exact (the store's triggers). The audit line names who, when,
 * how many and which ids: never the value an operator searched for.
 */
export async function eraseRespondents(
  store: Store,
  clock: Clock,
  respondents: ReadonlyArray<{ campaignId: string; id: string }>,
  why: 'ids' | 'value' | 'restore',
): Promise<Erasure> {
  // Ids only, whatever else the caller knows of them.
  const named = respondents.map(({ campaignId, id }) => ({ campaignId, id }));
  const ids = named.map((respondent) => respondent.id);
  await store.db.transaction().execute(async (trx) => {
    const removed = await removeRespondents(trx, ids);
    if (removed !== ids.length) {
      throw new DomainError(
        'conflict',
        'the respondents changed while they were erased; run it again',
      );
    }
    // An outbox may send the person again: held erased until the platform deletes them too.
    await holdErased(trx, named, clock.now());
    await endChange(trx, {
      engine: store.engine,
      clock,
      audit: {
        actor: operator(),
        action: 'respondents.erase',
        details: { count: ids.length, respondents: named, foundBy: why },
      },
    });
  });
  return { erased: named, scrub: await store.scrubRemovals() };
}

/** The named respondents of one campaign; an id not in it is refused by name. */
export async function respondentsOfCampaign(
  store: Store,
  campaignId: string,
  ids: readonly string[],
): Promise<Array<{ campaignId: string; id: string }>> {
  const present = new Set(await findRespondentIdsIn(store.db, campaignId, ids));
  const missing = ids.filter((id) => !present.has(id));
  if (missing.length > 0) {
    throw new DomainError(
      'not_found',
      `campaign ${campaignId} has no respondent ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ''}`,
    );
  }
  return ids.map((id) => ({ campaignId, id }));
}

/** Deletes a campaign and every respondent of it, each with its tombstone. */
export async function deleteCampaign(
  store: Store,
  clock: Clock,
  campaignId: string,
): Promise<{ campaignId: string; respondentsErased: number; scrub: Scrub }> {
  const erased = await store.db.transaction().execute(async (trx) => {
    const now = clock.now();
    const removed = await removeCampaign(trx, campaignId, now);
    if (!removed.deleted) {
      throw new DomainError('not_found', `campaign ${campaignId} does not exist`);
    }
    const count = removed.respondents;
    const changes = new ChangeSet();
    changes.campaignDeleted(campaignId);
    await endChange(trx, {
      engine: store.engine,
      clock,
      changes,
      audit: {
        actor: operator(),
        action: 'campaign.delete',
        target: campaignId,
        details: { respondents: count },
      },
    });
    return count;
  });
  return { campaignId, respondentsErased: erased, scrub: await store.scrubRemovals() };
}
