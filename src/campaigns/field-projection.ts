import { NEVER_SERVED_FIELDS } from '../never-served.ts';

/** A served answer: text, or a list of texts for multi-select questions. */
export type AnswerValue = string | string[];

/**
 * The served form of a stored answer, or undefined when the respondent left it blank (R1: blank
 * answers are omitted, never null). Numbers and booleans become the strings the respondent chose.
 */
export function normalizeAnswer(value: unknown): AnswerValue | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      const normalized = normalizeAnswer(item);
      if (typeof normalized === 'string') items.push(normalized);
    }
    return items.length === 0 ? undefined : items;
  }
  return undefined;
}

/** Answers picked for one key's allow-list in one campaign; built once per key and scope version. */
export interface Projection {
  /**
   * The allow-listed keys that may be served, secrets removed, in allow-list order but for
   * integer-like keys, which come first (the order of a JavaScript object's keys).
   */
  readonly fieldKeys: readonly string[];
  /** Equal for equal allow-lists: what a cached response depends on of the key. */
  readonly identity: string;
  /** Each served key's JSON text and a colon (`"key":`), in `fieldKeys` order. */
  readonly memberPrefixes: readonly string[];
  /**
   * Picks the served fields from a respondent's stored answers. Marks each served key in
   * `served` (one flag per `fieldKeys` entry) for the access log.
   */
  project(answers: Record<string, unknown>, served: boolean[]): Record<string, AnswerValue>;
}

export function compileProjection(allowList: readonly string[]): Projection {
  const allowed = allowList.filter((key) => !NEVER_SERVED_FIELDS.has(key) && key !== '__proto__');
  // In the order JSON.stringify writes an object's keys (integer-like keys first, ascending), so
  // a page's fields are written in one order whether or not their answers were parsed.
  const fieldKeys = Object.keys(Object.fromEntries(allowed.map((key) => [key, true])));
  const count = fieldKeys.length;
  return {
    fieldKeys,
    identity: JSON.stringify(fieldKeys),
    memberPrefixes: fieldKeys.map((key) => `${JSON.stringify(key)}:`),
    project(answers, served) {
      const fields: Record<string, AnswerValue> = {};
      for (let i = 0; i < count; i++) {
        const key = fieldKeys[i] as string;
        if (!Object.hasOwn(answers, key)) continue;
        const value = normalizeAnswer(answers[key]);
        if (value === undefined) continue;
        fields[key] = value;
        served[i] = true;
      }
      return fields;
    },
  };
}
