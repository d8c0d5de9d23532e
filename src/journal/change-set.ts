import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import {
  type CampaignChange,
  eventBody,
  MAX_BODY_BYTES,
  type NewEvent,
  REMOVED_CHUNK_IDS,
} from './events.ts';
import {
  campaignHasListeners,
  findStampedIds,
  recordChange,
  recordEvents,
  removedPerCampaign,
} from './journal.repository.ts';

/**
 * What one transaction changed, gathered as it goes, for the events its commit sends: rows
 * written per campaign, campaigns changed, deleted or back. Removals come from the tombstones
 * the transaction stamped.
 */
export class ChangeSet {
  private readonly written = new Map<string, { rows: number; earliest: number }>();
  private readonly updated = new Map<string, Set<CampaignChange>>();
  private readonly deleted = new Set<string>();
  private readonly added = new Set<string>();

  rowWritten(campaignId: string, submittedAt: number): void {
    const seen = this.written.get(campaignId);
    if (seen) {
      seen.rows += 1;
      if (submittedAt < seen.earliest) seen.earliest = submittedAt;
    } else {
      this.written.set(campaignId, { rows: 1, earliest: submittedAt });
    }
  }

  campaignUpdated(campaignId: string, changes: readonly CampaignChange[]): void {
    if (changes.length === 0) return;
    const known = this.updated.get(campaignId) ?? new Set();
    for (const change of changes) known.add(change);
    this.updated.set(campaignId, known);
  }

  campaignDeleted(campaignId: string): void {
    this.deleted.add(campaignId);
    this.added.delete(campaignId);
  }

  /** Live again after a deletion: back in the scope of keys that name it. */
  campaignRestored(campaignId: string): void {
    this.added.add(campaignId);
    this.deleted.delete(campaignId);
  }

  /**
   * Writes the transaction's events to the outbox; call it after stampChanges, with the stamp it
   * gave its removals (undefined when nothing was removed).
   */
  async record(db: Kysely<Database>, removalStamp: number | undefined, now: number) {
    const removedCounts =
      removalStamp === undefined ? new Map() : await removedPerCampaign(db, removalStamp);
    const events: NewEvent[] = [];
    for (const campaignId of this.deleted) {
      events.push({ type: 'campaign.removed', data: { campaignId, reason: 'deleted' } });
    }
    for (const campaignId of this.added) {
      events.push({ type: 'campaign.added', data: { campaignId } });
    }
    for (const [campaignId, changes] of this.updated) {
      if (this.deleted.has(campaignId)) continue;
      events.push({ type: 'campaign.updated', data: { campaignId, changed: [...changes].sort() } });
    }
    await recordEvents(db, events, now);
    const touched = new Set([...this.written.keys(), ...removedCounts.keys()]);
    for (const campaignId of touched) {
      if (this.deleted.has(campaignId)) continue;
      const written = this.written.get(campaignId);
      // A steady stream of commits is told of about once per window (see recordChange).
      await recordChange(
        db,
        {
          type: 'respondents.changed',
          data: {
            campaignId,
            changed: written?.rows ?? 0,
            removed: removedCounts.get(campaignId) ?? 0,
            // Strictly before the earliest row written: `since` is exclusive.
            since: new Date((written?.earliest ?? now) - 1).toISOString(),
          },
        },
        now,
      );
    }
    if (removalStamp === undefined) return;
    for (const campaignId of removedCounts.keys()) {
      if (this.deleted.has(campaignId)) continue;
      // Reading every removed id costs; only for a campaign someone listens to.
      if (!(await campaignHasListeners(db, campaignId, now))) continue;
      await recordRemovedChunks(db, campaignId, removalStamp, now);
    }
  }
}

const READ_BATCH = 5_000;

/**
 * Records the `respondents.removed` events of one campaign's removals stamped at `stamp`, in id
 * order: at most REMOVED_CHUNK_IDS ids each, and a body under MAX_BODY_BYTES however long the
 * ids. Written as they are read, so a million removals do not sit in memory.
 */
async function recordRemovedChunks(
  db: Kysely<Database>,
  campaignId: string,
  stamp: number,
  now: number,
): Promise<void> {
  const removedAt = new Date(stamp).toISOString();
  const envelope = eventBody(
    'respondents.removed',
    stamp,
    JSON.stringify({ campaignId, removedAt, ids: [] }),
  ).length;
  const events: NewEvent[] = [];
  let ids: string[] = [];
  let bytes = envelope;
  const cut = () => {
    if (ids.length === 0) return;
    events.push({ type: 'respondents.removed', data: { campaignId, removedAt, ids } });
    ids = [];
    bytes = envelope;
  };
  let after = '';
  for (;;) {
    const rows = await findStampedIds(db, campaignId, stamp, after, READ_BATCH);
    for (const id of rows) {
      // Ids need no escaping (record-ids.ts): quotes and a comma.
      const size = id.length + 3;
      if (ids.length === REMOVED_CHUNK_IDS || bytes + size >= MAX_BODY_BYTES) cut();
      ids.push(id);
      bytes += size;
    }
    await recordEvents(db, events.splice(0), now);
    if (rows.length < READ_BATCH) break;
    after = rows[rows.length - 1] ?? after;
  }
  cut();
  await recordEvents(db, events, now);
}

/** A key's scope, as scope-change events compare it: campaign id to allow-listed fields. */
type ScopeLike = ReadonlyArray<{ campaignId: string; fields: readonly string[] }>;

/**
 * Writes the events of a key's scope change to its chain's endpoints: campaigns added, removed
 * and with another allow-list (`campaign.updated` with `fields`).
 */
export async function recordScopeChange(
  db: Kysely<Database>,
  lineageId: string,
  before: ScopeLike,
  after: ScopeLike,
  now: number,
): Promise<void> {
  const old = new Map(
    before.map((scope) => [scope.campaignId, [...scope.fields].sort().join(',')]),
  );
  const events: NewEvent[] = [];
  for (const scope of after) {
    const fields = old.get(scope.campaignId);
    if (fields === undefined) {
      events.push({ type: 'campaign.added', lineageId, data: { campaignId: scope.campaignId } });
    } else if (fields !== [...scope.fields].sort().join(',')) {
      events.push({
        type: 'campaign.updated',
        lineageId,
        data: { campaignId: scope.campaignId, changed: ['fields'] },
      });
    }
    old.delete(scope.campaignId);
  }
  for (const campaignId of old.keys()) {
    events.push({
      type: 'campaign.removed',
      lineageId,
      data: { campaignId, reason: 'out_of_scope' },
    });
  }
  await recordEvents(db, events, now);
}
