import type { Kysely } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * Who an operator erased, by id: a later version of the same respondent from the platform is not
 * applied (it would bring the person back) until the platform sends its deletion or an operator
 * lifts the hold. Ids and times only.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('erasure_holds')
    .addColumn('respondent_id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('erased_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('erasure_holds').execute();
}
