import { randomUUID } from 'node:crypto';
import { insertAccount } from '../../src/accounts/accounts.repository.ts';
import type { Clock } from '../../src/clock.ts';
import type { Store } from '../../src/db/connect.ts';
import type { FieldType } from '../../src/db/schema.ts';
import { importDocument } from '../../src/import/import.service.ts';
import type { KeyScope } from '../../src/keys/keys.repository.ts';
import { issueKey } from '../../src/keys/keys.service.ts';

/** An account without a password (the data API never needs one), for fast setup. */
export async function createTestAccount(
  store: Store,
  clock: Clock,
  email = `${randomUUID()}@example.test`,
) {
  const id = randomUUID();
  await insertAccount(store.db, {
    id,
    email,
    password_hash: null,
    must_change_password: 0,
    deactivated_at: null,
    created_at: clock.now(),
  });
  return { id, email };
}

export interface TestRespondent {
  id: string;
  submittedAt: string;
  attendanceStatus?: 'YES' | 'NO' | 'MAYBE';
  answers?: Record<string, unknown>;
  ipAddress?: string;
  token?: string;
  guestToken?: string;
}

/** Imports one campaign with its fields and respondents through the real import path. */
export async function seedCampaign(
  store: Store,
  clock: Clock,
  campaign: {
    id: string;
    title?: string;
    /** A field's label is its key unless given. */
    fields?: Array<{ key: string; type: FieldType; label?: string }>;
    respondents?: TestRespondent[];
    eventDate?: string | null;
    location?: string | null;
  },
) {
  return importDocument(store, clock, {
    campaigns: [
      {
        id: campaign.id,
        slug: campaign.id,
        title: campaign.title ?? `Campaign ${campaign.id}`,
        eventDate: campaign.eventDate ?? null,
        location: campaign.location ?? null,
        fields: (campaign.fields ?? []).map((field) => ({
          ...field,
          label: field.label ?? field.key,
        })),
      },
    ],
    respondents: (campaign.respondents ?? []).map((respondent) => ({
      attendanceStatus: 'YES',
      answers: {},
      ...respondent,
      campaignId: campaign.id,
    })),
  });
}

export async function importRespondents(
  store: Store,
  clock: Clock,
  campaignId: string,
  respondents: TestRespondent[],
) {
  return importDocument(store, clock, {
    respondents: respondents.map((respondent) => ({
      attendanceStatus: 'YES',
      answers: {},
      ...respondent,
      campaignId,
    })),
  });
}

/** Issues a key on a fresh account; returns the plaintext key and its id. */
export async function createTestKey(
  store: Store,
  clock: Clock,
  scopes: KeyScope[],
  options: { email?: string; expiresAt?: number } = {},
) {
  const account = await createTestAccount(store, clock, options.email);
  const issued = await issueKey(store, clock, {
    accountEmail: account.email,
    scopes,
    ...(options.expiresAt !== undefined ? { expiresAt: options.expiresAt } : {}),
  });
  return { ...issued, account };
}

/** A small campaign with a titled, labelled field, for the portal's pages. */
export async function seedWeddingCampaign(store: Store, clock: Clock) {
  return seedCampaign(store, clock, {
    id: 'nikah',
    title: 'Pernikahan Rina & Bayu',
    fields: [{ key: 'menu', type: 'TEXT' }],
    respondents: [
      { id: 'r1', submittedAt: '2026-11-01T00:00:00Z', answers: { menu: 'Sate' } },
      { id: 'r2', submittedAt: '2026-11-02T00:00:00Z', answers: { menu: 'Soto' } },
    ],
  });
}
