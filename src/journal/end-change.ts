import type { Kysely } from 'kysely';
import { type AuditEvent, recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Engine } from '../db/store.ts';
import { ChangeSet } from './change-set.ts';
import { stampChanges } from './change-stamps.repository.ts';

/** What a change leaves behind as it ends: the events it gathered, and its audit line. */
export interface ChangeEnd {
  engine: Engine;
  clock: Clock;
  /** What the change wrote (none: it only removed, and the stamped tombstones say what). */
  changes?: ChangeSet;
  /** Ids and counts, never a value. */
  audit: AuditEvent;
}

/**
 * Ends a change inside its own transaction, last, in the one order every change needs: its
 * removals and written respondents get their stamp (as near the commit as the service can make it), its events go to the
 * outbox (which counts the removals by that stamp), and its audit line is written. Every way data
 * changes (import and ingest, erasure, campaign deletion, retention) ends here.
 */
export async function endChange(trx: Kysely<Database>, end: ChangeEnd): Promise<void> {
  const { clock } = end;
  const stamp = await stampChanges(trx, end.engine, () => clock.now());
  const removalStamp = stamp?.removals ? stamp.at : undefined;
  await (end.changes ?? new ChangeSet()).record(trx, removalStamp, clock.now());
  await recordAudit(trx, end.audit, clock.now());
}
