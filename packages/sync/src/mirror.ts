import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Campaign, Respondent, Summary } from '@hadir/client';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';

interface MirrorTables {
  mirror_campaigns: {
    id: string;
    slug: string;
    title: string;
    event_date: string | null;
    location: string | null;
    response_count: number;
    summary: string | null;
    synced_at: string;
  };
  mirror_respondents: {
    id: string;
    campaign_id: string;
    submitted_at: string;
    attendance_status: string;
    fields: string;
    /** Set by a full sync when the row is no longer served; rows are never deleted silently. */
    removed_at: string | null;
  };
  mirror_state: {
    campaign_id: string;
    /** The largest submittedAt stored, advanced only after a whole sync of the campaign succeeded. */
    watermark: string | null;
    last_full_sync_at: string | null;
  };
}

export interface MirrorRow {
  campaignId: string;
  id: string;
  submittedAt: string;
  attendanceStatus: string;
  fields: Record<string, string | string[]>;
  removedAt: string | null;
}

/** The local copy: campaigns, respondents upserted by id (R4), and a watermark per campaign. */
export class Mirror {
  readonly #db: Kysely<MirrorTables>;

  private constructor(db: Kysely<MirrorTables>) {
    this.#db = db;
  }

  /** Opens `sqlite:PATH` or `postgres://…` and creates the mirror tables when missing. */
  static async open(url: string): Promise<Mirror> {
    let db: Kysely<MirrorTables>;
    if (url.startsWith('sqlite:')) {
      const path = url.slice('sqlite:'.length);
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      const database = new SqliteDatabase(path);
      database.pragma('journal_mode = WAL');
      db = new Kysely({ dialect: new SqliteDialect({ database }) });
    } else if (/^postgres(ql)?:\/\//.test(url)) {
      db = new Kysely({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }),
      });
    } else {
      throw new Error(`--to must be sqlite:PATH or postgres://…, got '${url.split(':')[0]}:…'`);
    }
    await db.schema
      .createTable('mirror_campaigns')
      .ifNotExists()
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('event_date', 'text')
      .addColumn('location', 'text')
      .addColumn('response_count', 'integer', (c) => c.notNull())
      .addColumn('summary', 'text')
      .addColumn('synced_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('mirror_respondents')
      .ifNotExists()
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('campaign_id', 'text', (c) => c.notNull())
      .addColumn('submitted_at', 'text', (c) => c.notNull())
      .addColumn('attendance_status', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('removed_at', 'text')
      .execute();
    await db.schema
      .createIndex('mirror_respondents_campaign')
      .ifNotExists()
      .on('mirror_respondents')
      .columns(['campaign_id', 'submitted_at', 'id'])
      .execute();
    await db.schema
      .createTable('mirror_state')
      .ifNotExists()
      .addColumn('campaign_id', 'text', (c) => c.primaryKey())
      .addColumn('watermark', 'text')
      .addColumn('last_full_sync_at', 'text')
      .execute();
    return new Mirror(db);
  }

  async saveCampaign(campaign: Campaign, summary: Summary, now: string): Promise<void> {
    const values = {
      slug: campaign.slug,
      title: campaign.title,
      event_date: campaign.eventDate,
      location: campaign.location,
      response_count: campaign.responseCount,
      summary: JSON.stringify(summary),
      synced_at: now,
    };
    await this.#db
      .insertInto('mirror_campaigns')
      .values({ id: campaign.id, ...values })
      .onConflict((oc) => oc.column('id').doUpdateSet(values))
      .execute();
  }

  /** Upserts one page by id in one transaction; a row seen again is no longer marked removed. */
  async upsertRespondents(campaignId: string, rows: Respondent[]): Promise<void> {
    if (rows.length === 0) return;
    await this.#db.transaction().execute(async (trx) => {
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
          })),
        )
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({
            campaign_id: eb.ref('excluded.campaign_id'),
            submitted_at: eb.ref('excluded.submitted_at'),
            attendance_status: eb.ref('excluded.attendance_status'),
            fields: eb.ref('excluded.fields'),
            removed_at: null,
          })),
        )
        .execute();
    });
  }

  async watermark(campaignId: string): Promise<string | null> {
    const row = await this.#db
      .selectFrom('mirror_state')
      .select('watermark')
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return row?.watermark ?? null;
  }

  /** Records a whole, successful sync: the watermark moves forward only, never back. */
  async finishSync(
    campaignId: string,
    watermark: string | null,
    fullAt: string | null,
  ): Promise<void> {
    const current = await this.watermark(campaignId);
    const next =
      [current, watermark]
        .filter((value): value is string => value !== null)
        .sort()
        .at(-1) ?? null;
    const values = { watermark: next, ...(fullAt ? { last_full_sync_at: fullAt } : {}) };
    await this.#db
      .insertInto('mirror_state')
      .values({ campaign_id: campaignId, last_full_sync_at: null, ...values })
      .onConflict((oc) => oc.column('campaign_id').doUpdateSet(values))
      .execute();
  }

  /** After a full pass: marks the campaign's rows that were not served as removed. */
  async markRemovedExcept(
    campaignId: string,
    seen: ReadonlySet<string>,
    now: string,
  ): Promise<number> {
    const stored = await this.#db
      .selectFrom('mirror_respondents')
      .select('id')
      .where('campaign_id', '=', campaignId)
      .where('removed_at', 'is', null)
      .execute();
    const gone = stored.map((row) => row.id).filter((id) => !seen.has(id));
    for (let i = 0; i < gone.length; i += 500) {
      await this.#db
        .updateTable('mirror_respondents')
        .set({ removed_at: now })
        .where('id', 'in', gone.slice(i, i + 500))
        .execute();
    }
    return gone.length;
  }

  async rows(campaignIds?: string[]): Promise<MirrorRow[]> {
    let query = this.#db
      .selectFrom('mirror_respondents')
      .selectAll()
      .orderBy('campaign_id')
      .orderBy('submitted_at')
      .orderBy('id');
    if (campaignIds && campaignIds.length > 0)
      query = query.where('campaign_id', 'in', campaignIds);
    const rows = await query.execute();
    return rows.map((row) => ({
      campaignId: row.campaign_id,
      id: row.id,
      submittedAt: row.submitted_at,
      attendanceStatus: row.attendance_status,
      fields: JSON.parse(row.fields),
      removedAt: row.removed_at,
    }));
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}
