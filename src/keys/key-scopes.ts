import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { DomainError } from '../errors.ts';
import { NEVER_SERVED_FIELDS } from '../never-served.ts';
import { findFieldsOfCampaigns, findLiveCampaigns, type KeyScope } from './keys.repository.ts';

/**
 * Checks that every campaign of a scope exists and is not deleted, and with `fields: 'known'` that
 * every field key is one of the campaign's fields; trims and dedupes field keys.
 */
export async function validateScopes(
  db: Kysely<Database>,
  scopes: KeyScope[],
  fields: FieldCheck = 'any',
): Promise<KeyScope[]> {
  const ids = scopes.map((scope) => scope.campaignId);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate)
    throw new DomainError('invalid', `campaign ${duplicate} is named in more than one --scope`);
  if (ids.length === 0) return [];
  const found = await findLiveCampaigns(db, ids);
  const existing = new Set(found.map((row) => row.id));
  const missing = ids.find((id) => !existing.has(id));
  if (missing) throw new DomainError('not_found', `campaign ${missing} does not exist`);
  const cleaned = scopes.map((scope) => ({
    campaignId: scope.campaignId,
    fields: [...new Set(scope.fields.map((field) => field.trim()).filter((field) => field !== ''))],
  }));
  // Spec, Respondent: never returned. They are not even kept, so an allow-list naming one would
  // only mislead whoever reads it.
  const neverServed = cleaned
    .flatMap((scope) => scope.fields)
    .find((field) => NEVER_SERVED_FIELDS.has(field));
  if (neverServed !== undefined) {
    throw new DomainError(
      'invalid',
      `${neverServed} is never stored or served, so no allow-list may name it`,
    );
  }
  if (fields === 'known') await requireKnownFields(db, cleaned);
  return cleaned;
}

/**
 * Whether a scope may name fields its campaigns do not have (yet): a key for a field a campaign
 * will gain. An operator's typo otherwise makes a key that silently reads less than meant.
 */
export type FieldCheck = 'known' | 'any';

async function requireKnownFields(db: Kysely<Database>, scopes: KeyScope[]): Promise<void> {
  const rows = await findFieldsOfCampaigns(
    db,
    scopes.map((scope) => scope.campaignId),
  );
  const known = new Set(rows.map((row) => `${row.campaign_id}\u0000${row.key}`));
  for (const scope of scopes) {
    const unknown = scope.fields.filter((field) => !known.has(`${scope.campaignId}\u0000${field}`));
    if (unknown.length === 0) continue;
    const has = rows.filter((row) => row.campaign_id === scope.campaignId).map((row) => row.key);
    throw new UnknownFieldsError(
      `campaign ${scope.campaignId} has no field ${unknown.join(', ')} (its fields: ${has.join(', ') || 'none'})`,
    );
  }
}

/** A scope named fields its campaign does not have, and the check asked for known ones. */
export class UnknownFieldsError extends DomainError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'UnknownFieldsError';
  }
}
