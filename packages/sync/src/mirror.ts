import type { Campaign, FieldDefinition, Respondent, Summary } from '@hadir/client';
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
 * Where an unfinished pass stopped, saved with every page it stored: a rerun continues after
 * `cursor` with the same `since`, instead of starting over.
 */
export interface Checkpoint {
  mode: PassMode;
  since: string | null;
  /** The `meta.nextCursor` of the last page stored. */
  cursor: string;
  rows: number;
  pages: number;
  maxSubmittedAt: string | null;
  /** Marks the rows a full pass has seen (see markRemovedExcept). */
  passId: string;
  startedAt: string;
  /**
   * The removals feed's `until` taken before a first or full pass began: the next run applies
   * removals from there, so none made while the pass ran (or lay interrupted) is missed.
   */
  removalsUntil?: string;
}

/** What a removed row keeps: its id, campaign and times. The person's answers go. */
function cleared(removedAt: string) {
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

  async saveCampaign(
    campaign: Campaign,
    summary: Summary,
    fields: FieldDefinition[],
    now: string,
  ): Promise<void> {
    const values = {
      slug: campaign.slug,
      title: campaign.title,
      event_date: campaign.eventDate,
      location: campaign.location,
      response_count: campaign.responseCount,
      summary: JSON.stringify(summary),
      field_definitions: JSON.stringify(fields),
      synced_at: now,
    };
    await this.#db
      .insertInto('mirror_campaigns')
      .values({ id: campaign.id, ...values })
      .onConflict((oc) => oc.column('id').doUpdateSet(values))
      .execute();
  }

  /**
   * Stores one page in one transaction: its rows upserted by id (a row seen again is no longer
   * marked removed) and the checkpoint that says so, so a rerun neither misses nor repeats a page.
   */
  async storePage(
    campaignId: string,
    rows: Respondent[],
    pass: { seenPass: string | null; checkpoint: Checkpoint | null },
  ): Promise<void> {
    const { seenPass, checkpoint } = pass;
    await this.#db.transaction().execute(async (trx) => {
      if (rows.length > 0) {
        await trx
          .insertInto('mirror_respondents')
          .values(
            rows.map((row) => ({
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
   * Records a whole, successful pass: the watermark moves forward only, never back, and the
   * checkpoint is cleared.
   */
  async finishSync(
    campaignId: string,
    watermark: string | null,
    fullAt: string | null,
    removalsWatermark: string | null,
  ): Promise<void> {
    const current = await this.watermark(campaignId);
    const next =
      [current, watermark]
        .filter((value): value is string => value !== null)
        .sort()
        .at(-1) ?? null;
    const values = {
      watermark: next,
      checkpoint: null,
      removals_watermark: removalsWatermark,
      ...(fullAt ? { last_full_sync_at: fullAt } : {}),
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
      .set(cleared(now))
      .where('campaign_id', '=', campaignId)
      .where('removed_at', 'is', null)
      .where((eb) => eb.or([eb('seen_pass', 'is', null), eb('seen_pass', '!=', passId)]))
      .executeTakeFirst();
    return this.#cleared(Number(result.numUpdatedRows));
  }

  /**
   * Applies removals from the feed: each row of the campaign named is cleared (a row that moved
   * to another campaign meanwhile is not this campaign's any more, and stays). Returns how many.
   */
  async applyRemovals(
    campaignId: string,
    removals: ReadonlyArray<{ id: string; removedAt: string }>,
  ): Promise<number> {
    let applied = 0;
    await this.#db.transaction().execute(async (trx) => {
      for (const removal of removals) {
        const result = await trx
          .updateTable('mirror_respondents')
          .set(cleared(removal.removedAt))
          .where('id', '=', removal.id)
          .where('campaign_id', '=', campaignId)
          .where('removed_at', 'is', null)
          .executeTakeFirst();
        applied += Number(result.numUpdatedRows);
      }
    });
    return this.#cleared(applied);
  }

  /** A campaign the key can no longer read (deleted, or out of its scope): every row is cleared. */
  async removeCampaign(campaignId: string, now: string): Promise<number> {
    const result = await this.#db
      .updateTable('mirror_respondents')
      .set(cleared(now))
      .where('campaign_id', '=', campaignId)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    await this.#db
      .updateTable('mirror_state')
      .set({ watermark: null, removals_watermark: null, checkpoint: null })
      .where('campaign_id', '=', campaignId)
      .execute();
    return this.#cleared(Number(result.numUpdatedRows));
  }

  async removalsWatermark(campaignId: string): Promise<string | null> {
    const row = await this.#db
      .selectFrom('mirror_state')
      .select('removals_watermark')
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return isoOf(row?.removals_watermark ?? null);
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
