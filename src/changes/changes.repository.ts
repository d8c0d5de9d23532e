import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Engine } from '../db/store.ts';
import { PENDING } from '../journal/change-stamps.repository.ts';

/** A change as the store holds it: an upsert with the respondent's row, or a removal. */
export type StoredChange =
  | {
      kind: 'upsert';
      changedAt: number;
      respondentId: string;
      submittedAt: number;
      attendanceStatus: string;
      /** The stored answers' JSON text. */
      answers: string;
    }
  | { kind: 'removal'; changedAt: number; respondentId: string };

/** A change's place in the feed's order: the stamp, then the respondent id. */
export interface ChangePosition {
  changedAt: number;
  respondentId: string;
}

/** Where a feed page starts: after a position, or at a row offset. */
export type ChangesStart =
  | { kind: 'after'; position: ChangePosition }
  | { kind: 'offset'; rows: number };

interface ChangeRow {
  changed_at: number | string;
  respondent_id: string;
  submitted_at: number | string | null;
  attendance_status: string | null;
  answers: string | null;
}

/**
 * One page of a campaign's changes after `sinceMs`, in (stamp, id) order: its respondents' last
 * writes (joined to their rows) and its tombstones, merged. Each side reads at most what the page
 * can hold, by its feed index, so a page costs its own rows whatever the campaign's size.
 */
export async function readChanges(
  db: Kysely<Database>,
  engine: Engine,
  campaignId: string,
  sinceMs: number | undefined,
  start: ChangesStart,
  limit: number,
): Promise<StoredChange[]> {
  const floor = Math.max(sinceMs ?? PENDING, PENDING);
  const offset = start.kind === 'offset' ? start.rows : 0;
  const each = offset + limit;
  const after = (stamp: string, id: string) =>
    start.kind === 'after'
      ? sql`AND (${sql.ref(stamp)} > ${start.position.changedAt} OR (${sql.ref(stamp)} = ${start.position.changedAt} AND ${sql.ref(id)} > ${start.position.respondentId}))`
      : sql``;
  const answers = engine === 'postgres' ? sql`r.answers::text` : sql`r.answers`;
  const result = await sql<ChangeRow>`
    SELECT changed_at, respondent_id, submitted_at, attendance_status, answers FROM (
      SELECT * FROM (
        SELECT c.changed_at, c.respondent_id, r.submitted_at, r.attendance_status,
          ${answers} AS answers
        FROM respondent_changes c JOIN respondents r ON r.id = c.respondent_id
        WHERE c.campaign_id = ${campaignId} AND c.changed_at > ${floor}
          ${after('c.changed_at', 'c.respondent_id')}
        ORDER BY c.changed_at, c.respondent_id LIMIT ${each}
      ) AS upserts
      UNION ALL
      SELECT * FROM (
        SELECT m.removed_at, m.respondent_id, CAST(NULL AS bigint), CAST(NULL AS text), CAST(NULL AS text)
        FROM removals m
        WHERE m.campaign_id = ${campaignId} AND m.removed_at > ${floor}
          ${after('m.removed_at', 'm.respondent_id')}
        ORDER BY m.removed_at, m.respondent_id LIMIT ${each}
      ) AS removed
    ) AS changes
    ORDER BY changed_at, respondent_id LIMIT ${limit} OFFSET ${offset}`.execute(db);
  return result.rows.map((row) =>
    row.attendance_status === null
      ? { kind: 'removal', changedAt: Number(row.changed_at), respondentId: row.respondent_id }
      : {
          kind: 'upsert',
          changedAt: Number(row.changed_at),
          respondentId: row.respondent_id,
          submittedAt: Number(row.submitted_at),
          attendanceStatus: row.attendance_status,
          answers: row.answers ?? '{}',
        },
  );
}

/** How many changes of a campaign are after `sinceMs`: live respondents' writes and tombstones. */
export async function countChanges(
  db: Kysely<Database>,
  campaignId: string,
  sinceMs: number | undefined,
): Promise<number> {
  const floor = Math.max(sinceMs ?? PENDING, PENDING);
  const result = await sql<{ n: number | string }>`
    SELECT (SELECT count(*) FROM respondent_changes
        WHERE campaign_id = ${campaignId} AND changed_at > ${floor})
      + (SELECT count(*) FROM removals
        WHERE campaign_id = ${campaignId} AND removed_at > ${floor}) AS n`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}
