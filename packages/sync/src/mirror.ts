import type { Campaign, Change, FieldDefinition, Summary } from '@hadir/client';
import type { Kysely } from 'kysely';
import { connectMirror } from './mirror-connection.js';
import {
  isoOf,
  jsonOf,
  type MirrorEngine,
  type MirrorTables,
  prepareMirror,
} from './mirror-schema.js';

export interface MirrorRow {
  campaignId: string;
  id: string;
  submittedAt: string;
  attendanceStatus: string;
  fields: Record<string, string | string[]>;
  removedAt: string | null;
}

/** What a pass is: the first ever, one after the watermark, or a full walk that marks removals. */
export type PassMode = 'first' | 'incremental' | 'full';

/**
 * Where an unfinished walk of the changes feed stopped, saved with every page it applied: a rerun
 * continues after `cursor` with the same `since`, instead of starting over.
 */
export interface Checkpoint {
  mode: PassMode;
  /** The changes watermark the walk reads from (null: from the beginning). */
  since: string | null;
  /** The `meta.nextCursor` of the last page applied. */
  cursor: string;
  rows: number;
  pages: number;
  maxSubmittedAt: string | null;
  /** Marks the rows a full pass has seen (see markRemovedExcept). */
  passId: string;
  startedAt: string;
}

/** What a removed row keeps: its id, campaign and times. The person's answers go. */
function clearedRow(removedAt: string) {
  return { removed_at: removedAt, fields: '{}', attendance_status: '' };
}

/** The local copy: campaigns, respondents upserted by id (R4), a watermark and checkpoint each. */
export class Mirror {
  readonly #db: Kysely<MirrorTables>;
  readonly engine: MirrorEngine;
  /** Rebuilds a SQLite mirror's pages from its live rows (see scrubRemoved). */
  readonly #rebuild: (() => void) | undefined;
  #clearedSinceRebuild = false;

  private constructor(
    db: Kysely<MirrorTables>,
    engine: MirrorEngine,
    rebuild: (() => void) | undefined,
  ) {
    this.#db = db;
    this.engine = engine;
    this.#rebuild = rebuild;
  }

  /** Opens `sqlite:PATH` or `postgres://…`, creating or upgrading the mirror tables. */
  static async open(url: string): Promise<Mirror> {
    const { db, engine, rebuild } = connectMirror(url);
    await prepareMirror(db, engine);
    return new Mirror(db, engine, rebuild);
  }

  /** Stores a campaign's list entry, and its summary and fields unless unchanged (undefined). */
  async saveCampaign(
    campaign: Campaign,
    summary: Summary | undefined,
    fields: FieldDefinition[] | undefined,
    now: string,
  ): Promise<void> {
    const values = {
      slug: campaign.slug,
      title: campaign.title,
      event_date: campaign.eventDate,
      location: campaign.location,
      response_count: campaign.responseCount,
      ...(summary ? { summary: JSON.stringify(summary) } : {}),
      ...(fields ? { field_definitions: JSON.stringify(fields) } : {}),
      synced_at: now,
    };
    await this.#db
      .insertInto('mirror_campaigns')
      .values({ id: campaign.id, ...values })
      .onConflict((oc) => oc.column('id').doUpdateSet(values))
      .execute();
  }

  /**
   * Applies one page of the changes feed in one transaction: its upserts stored by id (a row seen
   * again is no longer marked removed), its removals cleared, and the checkpoint that says so, so
   * a rerun neither misses nor repeats a page. Within a page each respondent appears once, so the
   * order of the two does not matter. Returns how many rows were cleared.
   */
  async applyChanges(
    campaignId: string,
    changes: readonly Change[],
    pass: { seenPass: string | null; checkpoint: Checkpoint | null },
  ): Promise<number> {
    const { seenPass, checkpoint } = pass;
    const upserts = changes.flatMap((change) => (change.type === 'upsert' ? [change] : []));
    const removals = changes.flatMap((change) => (change.type === 'removal' ? [change] : []));
    let cleared = 0;
    await this.#db.transaction().execute(async (trx) => {
      if (upserts.length > 0) {
        await trx
          .insertInto('mirror_respondents')
          .values(
            upserts.map(({ respondent: row }) => ({
              id: row.id,
              campaign_id: campaignId,
              submitted_at: row.submittedAt,
              attendance_status: row.attendanceStatus,
              fields: JSON.stringify(row.fields),
              removed_at: null,
              seen_pass: seenPass,
            })),
          )
          .onConflict((oc) =>
            oc.column('id').doUpdateSet((eb) => ({
              campaign_id: eb.ref('excluded.campaign_id'),
              submitted_at: eb.ref('excluded.submitted_at'),
              attendance_status: eb.ref('excluded.attendance_status'),
              fields: eb.ref('excluded.fields'),
              removed_at: null,
              seen_pass: eb.ref('excluded.seen_pass'),
            })),
          )
          .execute();
      }
      for (const removal of removals) {
        const result = await trx
          .updateTable('mirror_respondents')
          .set(clearedRow(removal.changedAt))
          .where('id', '=', removal.id)
          .where('campaign_id', '=', campaignId)
          .where('removed_at', 'is', null)
          .executeTakeFirst();
        cleared += Number(result.numUpdatedRows);
      }
      if (checkpoint) {
        const saved = JSON.stringify(checkpoint);
        await trx
          .insertInto('mirror_state')
          .values({
            campaign_id: campaignId,
            watermark: null,
            last_full_sync_at: null,
            checkpoint: saved,
          })
          .onConflict((oc) => oc.column('campaign_id').doUpdateSet({ checkpoint: saved }))
          .execute();
      }
    });
    return this.#cleared(cleared);
  }

  /** The changes feed's `until` after the campaign's last whole walk, if any. */
  async changesWatermark(campaignId: string): Promise<string | null> {
    const row = await this.#db
      .selectFrom('mirror_state')
      .select('changes_watermark')
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return isoOf(row?.changes_watermark ?? null);
  }

  async watermark(campaignId: string): Promise<string | null> {
    const row = await this.#db
      .selectFrom('mirror_state')
      .select('watermark')
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return isoOf(row?.watermark ?? null);
  }

  /** The unfinished pass of a campaign, if a run stopped part-way. */
  async checkpoint(campaignId: string): Promise<Checkpoint | null> {
    const row = await this.#db
      .selectFrom('mirror_state')
      .select('checkpoint')
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return row?.checkpoint ? jsonOf<Checkpoint>(row.checkpoint) : null;
  }

  async discardCheckpoint(campaignId: string): Promise<void> {
    await this.#db
      .updateTable('mirror_state')
      .set({ checkpoint: null })
      .where('campaign_id', '=', campaignId)
      .execute();
  }

  /**
   * Records a whole, successful walk: the changes watermark it ends at, the largest submittedAt
   * (which moves forward only, never back), and the checkpoint cleared.
   */
  async finishSync(
    campaignId: string,
    walk: { watermark: string | null; fullAt: string | null; changesWatermark: string | null },
  ): Promise<void> {
    const current = await this.watermark(campaignId);
    const next =
      [current, walk.watermark]
        .filter((value): value is string => value !== null)
        .sort()
        .at(-1) ?? null;
    const values = {
      watermark: next,
      checkpoint: null,
      changes_watermark: walk.changesWatermark,
      ...(walk.fullAt ? { last_full_sync_at: walk.fullAt } : {}),
    };
    await this.#db
      .insertInto('mirror_state')
      .values({ campaign_id: campaignId, last_full_sync_at: null, ...values })
      .onConflict((oc) => oc.column('campaign_id').doUpdateSet(values))
      .execute();
  }

  /** After a full pass: the campaign's rows that pass did not see are removed (see clearing). */
  async markRemovedExcept(campaignId: string, passId: string, now: string): Promise<number> {
    const result = await this.#db
      .updateTable('mirror_respondents')
      .set(clearedRow(now))
      .where('campaign_id', '=', campaignId)
      .where('removed_at', 'is', null)
      .where((eb) => eb.or([eb('seen_pass', 'is', null), eb('seen_pass', '!=', passId)]))
      .executeTakeFirst();
    return this.#cleared(Number(result.numUpdatedRows));
  }

  /** A campaign the key can no longer read (deleted, or out of its scope): every row is cleared. */
  async removeCampaign(campaignId: string, now: string): Promise<number> {
    const result = await this.#db
      .updateTable('mirror_respondents')
      .set(clearedRow(now))
      .where('campaign_id', '=', campaignId)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    await this.#db
      .updateTable('mirror_state')
      .set({ watermark: null, removals_watermark: null, changes_watermark: null, checkpoint: null })
      .where('campaign_id', '=', campaignId)
      .execute();
    return this.#cleared(Number(result.numUpdatedRows));
  }

  /** The definitions of the fields the key could read at the last sync, in form order. */
  async fieldDefinitions(campaignIds: string[]): Promise<FieldDefinition[]> {
    if (campaignIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('mirror_campaigns')
      .select('field_definitions')
      .where('id', 'in', campaignIds)
      .orderBy('id')
      .execute();
    const seen = new Set<string>();
    const fields: FieldDefinition[] = [];
    for (const row of rows) {
      for (const field of row.field_definitions
        ? jsonOf<FieldDefinition[]>(row.field_definitions)
        : []) {
        if (!seen.has(field.key)) fields.push(field);
        seen.add(field.key);
      }
    }
    return fields;
  }

  /** The ids of the mirrored campaigns. */
  async campaignIds(): Promise<string[]> {
    const rows = await this.#db.selectFrom('mirror_campaigns').select('id').orderBy('id').execute();
    return rows.map((row) => row.id);
  }

  /**
   * The mirrored rows of the given campaigns (all when none), in campaign, submittedAt and id
   * order, read in batches so that memory stays flat whatever the mirror holds.
   */
  async *rows(
    campaignIds: string[] = [],
    options: { includeRemoved?: boolean; batch?: number } = {},
  ): AsyncGenerator<MirrorRow> {
    const batch = options.batch ?? 1000;
    let after: { campaignId: string; submittedAt: string; id: string } | undefined;
    for (;;) {
      let query = this.#db
        .selectFrom('mirror_respondents')
        .selectAll()
        .orderBy('campaign_id')
        .orderBy('submitted_at')
        .orderBy('id')
        .limit(batch);
      if (campaignIds.length > 0) query = query.where('campaign_id', 'in', campaignIds);
      if (!options.includeRemoved) query = query.where('removed_at', 'is', null);
      if (after) {
        const { campaignId, submittedAt, id } = after;
        query = query.where((eb) =>
          eb.or([
            eb('campaign_id', '>', campaignId),
            eb.and([eb('campaign_id', '=', campaignId), eb('submitted_at', '>', submittedAt)]),
            eb.and([
              eb('campaign_id', '=', campaignId),
              eb('submitted_at', '=', submittedAt),
              eb('id', '>', id),
            ]),
          ]),
        );
      }
      const rows = await query.execute();
      for (const row of rows) {
        yield {
          campaignId: row.campaign_id,
          id: row.id,
          submittedAt: isoOf(row.submitted_at),
          attendanceStatus: row.attendance_status,
          fields: jsonOf(row.fields),
          removedAt: isoOf(row.removed_at),
        };
      }
      const last = rows.at(-1);
      if (!last || rows.length < batch) return;
      after = { campaignId: last.campaign_id, submittedAt: isoOf(last.submitted_at), id: last.id };
    }
  }

  /** Counts rows whose answers were cleared, so that the next scrub rebuilds the file. */
  #cleared(rows: number): number {
    if (rows > 0) this.#clearedSinceRebuild = true;
    return rows;
  }

  /**
   * After rows were cleared: leaves no byte of their answers in a SQLite mirror's file.
   * secure_delete overwrites a cleared answer, but SQLite leaves copies of rows it moved between
   * pages earlier in the unused part of those pages; VACUUM rebuilds every page from the live
   * rows, and the write-ahead log is truncated. A PostgreSQL mirror keeps old row versions until
   * its own VACUUM FULL (see the README).
   */
  async scrubRemoved(): Promise<void> {
    if (!this.#clearedSinceRebuild) return;
    this.#rebuild?.();
    this.#clearedSinceRebuild = false;
  }

  async close(): Promise<void> {
    await this.scrubRemoved();
    await this.#db.destroy();
  }
}
