import { normalizeAnswer } from '../campaigns/field-projection.ts';
import {
  ATTENDANCE_STATUSES,
  type AttendanceStatus,
  FIELD_TYPES,
  type FieldType,
} from '../db/schema.ts';
import { parseInstant } from '../instant.ts';
import { NEVER_SERVED_FIELDS } from '../never-served.ts';
import { isRecordId, RECORD_ID_RULE } from '../record-ids.ts';
import type { Problems } from './import-problems.ts';

export interface CampaignField {
  key: string;
  label: string;
  type: FieldType;
}

/** `{ "id": …, "deleted": true }`, of a campaign or a respondent. */
export interface Deletion {
  kind: 'delete';
  id: string;
  where: string;
  /** A respondent's deletion may carry the source's version of the row (see RespondentEntry). */
  version?: number;
}

export type CampaignEntry =
  | {
      kind: 'upsert';
      id: string;
      slug: string;
      title: string;
      eventDate: number | null;
      location: string | null;
      /** Undefined keeps the campaign's fields as they are; a list replaces them. */
      fields?: CampaignField[];
      /** Where it is in its file, for problem reports: `campaigns[0] (id c1)`. */
      where: string;
    }
  | Deletion;

export type RespondentEntry =
  | {
      kind: 'upsert';
      id: string;
      campaignId: string;
      submittedAt: number;
      attendanceStatus: AttendanceStatus;
      /** Answers as served: blanks dropped, numbers and booleans as strings (JSON text). */
      answers: string;
      /**
       * The source's version of the row, raised on every change: a record not newer than the
       * version held is stale and skipped. Without it, the later record wins.
       */
      version?: number;
      /** Where it is in its file, for problem reports: `respondents[5] (id r5)`, `line 12 (id r5)`. */
      where: string;
    }
  | Deletion;

/**
 * Values the platform's export carries that the service never serves (spec, Respondent): the
 * import drops them before anything is written, as record properties or as answers, and says
 * how many. A value never served is never kept.
 */
export type NeverServed = 'ipAddress' | 'token' | 'guestToken';
export type DroppedValues = Record<NeverServed, number>;

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where a record is: its place in the file and, when it has a valid one, its id. */
function label(place: string, record: unknown): string {
  const id =
    isObject(record) && typeof record.id === 'string' && isRecordId(record.id)
      ? ` (id ${record.id})`
      : '';
  return `${place}${id}`;
}

/** A value as a problem line may show it: JSON-quoted, and short. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // Nested past what the serialiser can write: nothing of it is worth showing.
    return 'a value nested too deep to show';
  }
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** How deep a record may nest: an answer's list sits three levels down. */
export const MAX_RECORD_DEPTH = 16;

/** Whether a value nests deeper than MAX_RECORD_DEPTH, found without recursion. */
function nestsTooDeep(value: unknown): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_RECORD_DEPTH) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/** A campaign or respondent id (see record-ids.ts): it must be reachable by URL and CLI. */
function requireId(problems: Problems, where: string, record: Json, key: string): string {
  const value = record[key];
  if (typeof value === 'string' && isRecordId(value)) return value;
  problems.add(
    where,
    value === undefined
      ? `'${key}' is required: ${RECORD_ID_RULE}`
      : `'${key}' must be ${RECORD_ID_RULE}, got ${shown(value)}`,
  );
  // No id: nothing invalid is looked up or named (PostgreSQL cannot even compare a NUL).
  return '';
}

function checkKeys(problems: Problems, where: string, record: Json, allowed: readonly string[]) {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) problems.add(where, `unknown property '${key}'`);
  }
}

/**
 * Why a text cannot be stored as it is on both engines, or undefined when it can. SQLite keeps
 * either of these; PostgreSQL refuses them, so a document is checked the same way for both.
 */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'holds a NUL character (U+0000), which cannot be stored';
  if (!text.isWellFormed()) return 'is not valid Unicode (it holds an unpaired surrogate)';
  return undefined;
}

/** Adds a problem when `text` cannot be stored (see textProblem); true when it can. */
function checkText(problems: Problems, where: string, what: string, text: string): boolean {
  const problem = textProblem(text);
  if (problem) problems.add(where, `${what} ${problem}`);
  return problem === undefined;
}

function requireString(problems: Problems, where: string, record: Json, key: string): string {
  const value = record[key];
  if (typeof value === 'string' && value.trim() !== '') {
    checkText(problems, where, `'${key}'`, value);
    return value;
  }
  problems.add(where, `'${key}' must be a non-empty string`);
  return '';
}

/**
 * A field key as an operator names it in `--scope ID=key1,key2`: 1 to 128 characters, no comma
 * (the list's separator) and no control character.
 */
const FIELD_KEY = /^[^,\p{Cc}]{1,128}$/u;

function optionalString(
  problems: Problems,
  where: string,
  record: Json,
  key: string,
): string | null {
  const value = record[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    checkText(problems, where, `'${key}'`, value);
    return value;
  }
  problems.add(where, `'${key}' must be a string or null`);
  return null;
}

function instant(problems: Problems, where: string, value: unknown, key: string): number | null {
  if (typeof value === 'string') {
    const ms = parseInstant(value);
    if (ms !== undefined) return ms;
  }
  problems.add(
    where,
    `'${key}' must be an ISO-8601 date-time with Z or an offset, got ${shown(value)}`,
  );
  return null;
}

function isDeletion(problems: Problems, where: string, record: Json): boolean {
  if (record.deleted === undefined || record.deleted === false) return false;
  if (record.deleted === true) return true;
  problems.add(where, `'deleted' must be true or false`);
  return false;
}

function parseFields(
  problems: Problems,
  where: string,
  value: unknown,
): CampaignField[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.add(where, `'fields' must be an array`);
    return undefined;
  }
  const seen = new Set<string>();
  const fields: CampaignField[] = [];
  value.forEach((field, index) => {
    const at = `${where} fields[${index}]`;
    if (!isObject(field)) {
      problems.add(at, 'must be an object');
      return;
    }
    checkKeys(problems, at, field, ['key', 'label', 'type']);
    const key = requireString(problems, at, field, 'key');
    if (key !== '' && !FIELD_KEY.test(key)) {
      problems.add(
        at,
        `'key' must be 1 to 128 characters without commas or control characters, got ${shown(key)}`,
      );
    }
    const type = field.type;
    if (!FIELD_TYPES.includes(type as FieldType)) {
      problems.add(at, `'type' must be one of ${FIELD_TYPES.join(', ')}, got ${shown(type)}`);
    }
    if (seen.has(key)) problems.add(at, `field key '${key}' appears twice`);
    seen.add(key);
    const fieldLabel = typeof field.label === 'string' ? field.label : key;
    checkText(problems, at, `'label'`, fieldLabel);
    fields.push({ key, label: fieldLabel, type: type as FieldType });
  });
  return fields;
}

interface OpenedRecord {
  where: string;
  id: string;
  record: Json;
  deletion?: Deletion;
}

/**
 * What every record starts with: where it is (with its id once valid), its id, and, for
 * `{ "id": …, "deleted": true }`, the deletion it stands for. Undefined when it is not an object.
 */
function openRecord(problems: Problems, place: string, record: unknown): OpenedRecord | undefined {
  if (nestsTooDeep(record)) {
    return void problems.add(place, `is nested more than ${MAX_RECORD_DEPTH} levels deep`);
  }
  const where = label(place, record);
  if (!isObject(record)) return void problems.add(where, 'must be an object');
  const id = requireId(problems, where, record, 'id');
  if (isDeletion(problems, where, record)) {
    const version = optionalVersion(problems, where, record);
    return {
      where,
      id,
      record,
      deletion: { kind: 'delete', id, where, ...(version === undefined ? {} : { version }) },
    };
  }
  return { where, id, record };
}

/** A record's `version`: a whole number from 0, or undefined when it has none. */
function optionalVersion(problems: Problems, where: string, record: Json): number | undefined {
  const value = record.version;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  problems.add(
    where,
    `'version' must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got ${shown(value)}`,
  );
  return undefined;
}

/**
 * Checks one campaign record (`place` says where it is in its file) and returns it in stored
 * form, or undefined when it is not even an object; every problem goes to `problems`.
 */
export function checkCampaign(
  problems: Problems,
  place: string,
  raw: unknown,
): CampaignEntry | undefined {
  const opened = openRecord(problems, place, raw);
  if (opened?.deletion?.version !== undefined) {
    problems.add(opened.where, `'version' is for respondents: a campaign has none`);
  }
  if (!opened || opened.deletion) return opened?.deletion;
  const { where, id, record } = opened;
  checkKeys(problems, where, record, [
    'id',
    'slug',
    'title',
    'eventDate',
    'location',
    'fields',
    'deleted',
  ]);
  const slug = requireString(problems, where, record, 'slug');
  const title = requireString(problems, where, record, 'title');
  const eventDate =
    record.eventDate === undefined || record.eventDate === null
      ? null
      : instant(problems, where, record.eventDate, 'eventDate');
  const location = optionalString(problems, where, record, 'location');
  const fields = parseFields(problems, where, record.fields);
  return {
    kind: 'upsert',
    id,
    slug,
    title,
    eventDate,
    location,
    ...(fields ? { fields } : {}),
    where,
  };
}

function parseAnswers(
  problems: Problems,
  where: string,
  value: unknown,
  dropped: DroppedValues,
): string {
  if (value === undefined || value === null) return '{}';
  if (!isObject(value)) {
    problems.add(where, `'answers' must be an object of field key to value`);
    return '{}';
  }
  const served: Array<[string, string | string[]]> = [];
  for (const [key, answer] of Object.entries(value)) {
    if (NEVER_SERVED_FIELDS.has(key)) {
      if (answer !== null && answer !== undefined) dropped[key as NeverServed] += 1;
      continue;
    }
    const scalar = (item: unknown) =>
      item === null || ['string', 'number', 'boolean'].includes(typeof item);
    const valid = scalar(answer) || (Array.isArray(answer) && answer.every(scalar));
    if (!valid) {
      problems.add(
        where,
        `answer '${key}' must be a string, number, boolean, null or an array of those`,
      );
      continue;
    }
    if (!checkText(problems, where, `answer key ${shown(key)}`, key)) continue;
    const texts = (Array.isArray(answer) ? answer : [answer]).filter(
      (item): item is string => typeof item === 'string',
    );
    if (!texts.every((text) => checkText(problems, where, `answer '${key}'`, text))) continue;
    const normalized = normalizeAnswer(answer);
    if (normalized !== undefined) served.push([key, normalized]);
  }
  // fromEntries defines own properties, so even a key named __proto__ stays plain data.
  return JSON.stringify(Object.fromEntries(served));
}

/** Checks one respondent record, as checkCampaign does; never-served values are counted. */
export function checkRespondent(
  problems: Problems,
  place: string,
  raw: unknown,
  dropped: DroppedValues,
): RespondentEntry | undefined {
  const opened = openRecord(problems, place, raw);
  if (!opened || opened.deletion) return opened?.deletion;
  const { where, id, record } = opened;
  checkKeys(problems, where, record, [
    'id',
    'campaignId',
    'submittedAt',
    'attendanceStatus',
    'answers',
    'ipAddress',
    'token',
    'guestToken',
    'deleted',
    'version',
  ]);
  const campaignId = requireId(problems, where, record, 'campaignId');
  const version = optionalVersion(problems, where, record);
  const submittedAt = instant(problems, where, record.submittedAt, 'submittedAt') ?? 0;
  const status = record.attendanceStatus;
  if (!ATTENDANCE_STATUSES.includes(status as AttendanceStatus)) {
    problems.add(
      where,
      `'attendanceStatus' must be one of ${ATTENDANCE_STATUSES.join(', ')}, got ${shown(status)}`,
    );
  }
  // Checked like the rest of the record, then dropped: never stored, never served.
  for (const key of ['ipAddress', 'token', 'guestToken'] as const) {
    if (optionalString(problems, where, record, key) !== null) dropped[key] += 1;
  }
  return {
    kind: 'upsert',
    id,
    campaignId,
    submittedAt,
    attendanceStatus: status as AttendanceStatus,
    answers: parseAnswers(problems, where, record.answers, dropped),
    where,
    ...(version === undefined ? {} : { version }),
  };
}
