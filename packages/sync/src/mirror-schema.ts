import { type Kysely, sql } from 'kysely';

export type MirrorEngine = 'sqlite' | 'postgres';

/** A time as a driver returns it: ISO text on SQLite, a Date from a PostgreSQL timestamptz. */
export type StoredTime = string | Date;
/** JSON as a driver returns it: text on SQLite, parsed from a PostgreSQL jsonb. */
export type StoredJson = string | object;

export interface MirrorTables {
  mirror_campaigns: {
    id: string;
    slug: string;
    title: string;
    event_date: StoredTime | null;
    location: string | null;
    response_count: number;
    summary: StoredJson | null;
    /** The allow-listed fields' definitions (key, label, type, position), for exports. */
    field_definitions: StoredJson | null;
    synced_at: StoredTime;
  };
  mirror_respondents: {
    id: string;
    campaign_id: string;
    submitted_at: StoredTime;
    attendance_status: string;
    fields: StoredJson;
    /**
     * When the row left the source (the removals feed, a full pass that no longer saw it, or its
     * campaign gone). A removed row keeps only id, campaign, submittedAt and this time: its fields
     * and attendance are cleared, since the person's data must leave the mirror too.
     */
    removed_at: StoredTime | null;
    /** The full pass that last served the row: what a resumed pass has already seen. */
    seen_pass: string | null;
  };
  mirror_state: {
    campaign_id: string;
    /** The largest submittedAt stored, advanced only after a whole sync of the campaign succeeded. */
    watermark: StoredTime | null;
    last_full_sync_at: StoredTime | null;
    /** Where an unfinished pass stopped (see Checkpoint), null between passes. */
    checkpoint: StoredJson | null;
    /** The removals feed's `until` after the last whole sync, by hadir-sync before the changes feed. */
    removals_watermark: StoredTime | null;
    /** The changes feed's `until` after the last whole walk: the next walk reads from there. */
    changes_watermark: StoredTime | null;
  };
}

/** Each engine's own types: on PostgreSQL times are timestamptz and JSON is jsonb. */
function types(engine: MirrorEngine) {
  return engine === 'postgres'
    ? { time: 'timestamptz', json: 'jsonb' }
    : { time: 'text', json: 'text' };
}

/** Creates the mirror's tables, or brings an older mirror to the current columns and types. */
export async function prepareMirror(db: Kysely<MirrorTables>, engine: MirrorEngine): Promise<void> {
  const { time, json } = types(engine);
  await db.schema
    .createTable('mirror_campaigns')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('event_date', sql.raw(time))
    .addColumn('location', 'text')
    .addColumn('response_count', 'integer', (c) => c.notNull())
    .addColumn('summary', sql.raw(json))
    .addColumn('field_definitions', sql.raw(json))
    .addColumn('synced_at', sql.raw(time), (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('mirror_respondents')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('submitted_at', sql.raw(time), (c) => c.notNull())
    .addColumn('attendance_status', 'text', (c) => c.notNull())
    .addColumn('fields', sql.raw(json), (c) => c.notNull())
    .addColumn('removed_at', sql.raw(time))
    .addColumn('seen_pass', 'text')
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
    .addColumn('watermark', sql.raw(time))
    .addColumn('last_full_sync_at', sql.raw(time))
    .addColumn('checkpoint', sql.raw(json))
    .addColumn('removals_watermark', sql.raw(time))
    .addColumn('changes_watermark', sql.raw(time))
    .execute();
  await upgrade(db, engine);
}

/** Columns added since the first mirrors, and (PostgreSQL) the types text once stood in for. */
async function upgrade(db: Kysely<MirrorTables>, engine: MirrorEngine): Promise<void> {
  const { time, json } = types(engine);
  const added: Array<[string, string, string]> = [
    ['mirror_respondents', 'seen_pass', 'text'],
    ['mirror_state', 'checkpoint', json],
    ['mirror_state', 'removals_watermark', time],
    ['mirror_campaigns', 'field_definitions', json],
    ['mirror_state', 'changes_watermark', time],
  ];
  const tables = await db.introspection.getTables();
  const has = (table: string, column: string) =>
    tables.some((t) => t.name === table && t.columns.some((c) => c.name === column));
  for (const [table, column, type] of added) {
    if (!has(table, column))
      await sql.raw(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`).execute(db);
  }
  if (engine !== 'postgres') return;
  const typed: Array<[string, string, string]> = [
    ['mirror_campaigns', 'event_date', time],
    ['mirror_campaigns', 'summary', json],
    ['mirror_campaigns', 'synced_at', time],
    ['mirror_respondents', 'submitted_at', time],
    ['mirror_respondents', 'fields', json],
    ['mirror_respondents', 'removed_at', time],
    ['mirror_state', 'watermark', time],
    ['mirror_state', 'last_full_sync_at', time],
  ];
  for (const [table, column, type] of typed) {
    const found = tables
      .find((t) => t.name === table)
      ?.columns.find((c) => c.name === column)?.dataType;
    if (found === 'text') {
      await sql
        .raw(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE ${type} USING ${column}::${type}`)
        .execute(db);
    }
  }
}

/** An instant as the API writes it: ISO-8601 in UTC with milliseconds. */
export function isoOf(value: StoredTime): string;
export function isoOf(value: StoredTime | null): string | null;
export function isoOf(value: StoredTime | null): string | null {
  if (value === null) return null;
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

export function jsonOf<T>(value: StoredJson): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
