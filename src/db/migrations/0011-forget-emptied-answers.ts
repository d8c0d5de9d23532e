import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * A single-choice answer nobody gives any more leaves `answer_counts`. Its row held the value
 * itself, and a value one person typed (a RADIO answer outside the form's options) is that
 * person's data: counted down to 0 by an erasure, it stayed readable. Summaries never showed a 0.
 * On PostgreSQL its values are no longer sampled into pg_statistic either.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'sqlite') {
    await sql`CREATE TRIGGER answer_counts_forget_emptied AFTER UPDATE OF count ON answer_counts
      WHEN NEW.count <= 0 BEGIN
        DELETE FROM answer_counts WHERE campaign_id = NEW.campaign_id
          AND field_key = NEW.field_key AND value = NEW.value;
      END`.execute(db);
  } else {
    await sql`CREATE FUNCTION answer_counts_forget_emptied() RETURNS trigger LANGUAGE plpgsql AS $body$
      BEGIN
        DELETE FROM answer_counts WHERE campaign_id = NEW.campaign_id
          AND field_key = NEW.field_key AND value = NEW.value;
        RETURN NULL;
      END
      $body$`.execute(db);
    await sql`CREATE TRIGGER answer_counts_forget_emptied AFTER UPDATE OF count ON answer_counts
      FOR EACH ROW WHEN (NEW.count <= 0) EXECUTE FUNCTION answer_counts_forget_emptied()`.execute(
      db,
    );
    // ANALYZE would copy sample values into pg_statistic, where they outlive their rows. The
    // planner reads counts by campaign and field only. Re-typing to the same type drops the
    // statistics kept so far, without rewriting the table.
    await sql`ALTER TABLE answer_counts ALTER COLUMN value SET STATISTICS 0`.execute(db);
    await sql`ALTER TABLE answer_counts ALTER COLUMN value TYPE text`.execute(db);
  }
  await sql`DELETE FROM answer_counts WHERE count <= 0`.execute(db);
}

export async function down(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'sqlite') {
    await sql`DROP TRIGGER answer_counts_forget_emptied`.execute(db);
  } else {
    await sql`DROP TRIGGER answer_counts_forget_emptied ON answer_counts`.execute(db);
    await sql`DROP FUNCTION answer_counts_forget_emptied()`.execute(db);
  }
}
