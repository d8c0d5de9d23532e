import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export interface AuditEvent {
  /** `operator` for CLI actions; an account id for portal actions. */
  actor: string;
  action: string;
  target?: string;
  /** Plain facts about the action; never a secret. */
  details?: object;
}

export async function recordAudit(
  db: Kysely<Database>,
  event: AuditEvent,
  at: number,
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at,
      actor: event.actor,
      action: event.action,
      target: event.target ?? null,
      details: JSON.stringify(event.details ?? {}),
    })
    .execute();
}
