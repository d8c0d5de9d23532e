import type { components } from './api-types.generated.js';

type Schemas = components['schemas'];

/** Spec, Campaign (list item). */
export type Campaign = Schemas['Campaign'];

/** Spec, Summary. Counters the client does not know yet are kept (spec, Versioning). */
export type Summary = Schemas['Summary'];

/**
 * Spec, Respondent. R1: the set of keys in `fields` varies by key and respondent; a missing key
 * means "not allowed or left blank", never null.
 */
export type Respondent = Schemas['Respondent'];

export type AttendanceStatus = Respondent['attendanceStatus'];

export type PageMeta = Schemas['PageMeta'];

export type RespondentsPage = Schemas['RespondentsPage'];

/** The error envelope every failed request answers with. */
export type ErrorEnvelope = Schemas['Error'];

/** One respondent who left a campaign: delete `id` from your copy. */
export type Removal = Schemas['Removal'];

export type RemovalsPage = Schemas['RemovalsPage'];

/**
 * One change of the changes feed, told apart by `type`: an `upsert` carries the respondent as it
 * is now (upsert it by id, R4); a `removal` names an id to delete from your copy.
 */
export type Change = Schemas['Change'];

export type UpsertChange = Schemas['UpsertChange'];

export type RemovalChange = Schemas['RemovalChange'];

export type ChangesPage = Schemas['ChangesPage'];

/** What a field key stands for: the question's label, its type and its place in the form. */
export type FieldDefinition = Schemas['FieldDefinition'];
