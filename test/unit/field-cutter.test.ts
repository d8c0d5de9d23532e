import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Projection } from '../../src/campaigns/field-projection.ts';
import { compileProjection } from '../../src/campaigns/field-projection.ts';
import { ByteWriter } from '../../src/campaigns/pages/byte-writer.ts';
import { cutAnswers } from '../../src/campaigns/pages/field-cutter.ts';

const KEYS = ['nama', 'menu', 'alergi', 'kota', 'token', '__proto__', 'a b', 'é', '2', '10'];

/** jsonb's text form: a space after every colon and comma outside strings. */
function spaced(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(spaced).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${spaced(item)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** The general path: parse, project, serialise. */
function slow(text: string, allowList: string[]) {
  const projection = compileProjection(allowList);
  const served = new Array(projection.fieldKeys.length).fill(false);
  return { json: JSON.stringify(projection.project(JSON.parse(text), served)), served };
}

const plainString = fc.stringMatching(/^[A-Za-z0-9À-ž@.+-][A-Za-z0-9À-ž@.+\- ]{0,20}$/);
const anyValue = fc.oneof(
  plainString,
  fc.array(plainString, { minLength: 1, maxLength: 3 }),
  fc.string(),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('', ' ', 'a"b', 'back\\slash', 'line\nbreak', '\u00a0nbsp'),
  // Text that looks like JSON structure, or like a member of another key.
  fc.array(fc.constantFrom('a]b', 'x:y', 'p, q', ', ', 'c{d', 'nama', 'kota:', '[x]', 'é'), {
    minLength: 1,
    maxLength: 3,
  }),
  fc.constantFrom('a]b', 'x:y', 'p, q', 'c{d', 'nama', 'kota:', '"nama":"x"'),
);
const answers = fc.dictionary(fc.constantFrom(...KEYS), anyValue, { maxKeys: KEYS.length });

/**
 * The cutter as a page runs it: on answers inside the page's longer text, written into the body's
 * bytes; undefined when it leaves the row to the general path. Rows with a backslash never reach
 * it (the page checks), and neither do they here.
 */
function cutToText(text: string, projection: Projection, served: boolean[]): string | undefined {
  if (text.includes('\\')) return undefined;
  const page = `1,YES,"a"\u001f${text}\u001e2,NO,"b"\u001f{"kota":"x"}`;
  const from = page.indexOf('\u001f') + 1;
  const out = new ByteWriter(16);
  const before = [...served];
  if (!cutAnswers(page, from, from + text.length, projection, served, out)) {
    expect(served).toEqual(before);
    return undefined;
  }
  return out.finish().toString();
}

describe('cutAnswers', () => {
  it('gives exactly the bytes of the general path, or leaves the row to it', () => {
    fc.assert(
      fc.property(answers, fc.subarray(KEYS), fc.boolean(), (stored, allowList, jsonb) => {
        const text = jsonb ? spaced(stored) : JSON.stringify(stored);
        const projection = compileProjection(allowList);
        const served = new Array(projection.fieldKeys.length).fill(false);
        const fast = cutToText(text, projection, served);
        if (fast === undefined) return;
        const expected = slow(text, allowList);
        expect(fast).toBe(expected.json);
        expect(served).toEqual(expected.served);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the fast path for answers in served form, from SQLite or from jsonb', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('nama', 'menu', 'alergi', 'kota'),
          fc.oneof(plainString, fc.array(plainString, { minLength: 1, maxLength: 3 })),
        ),
        fc.boolean(),
        (stored, jsonb) => {
          const text = jsonb ? spaced(stored) : JSON.stringify(stored);
          const projection = compileProjection(['kota', 'nama', 'menu']);
          const served = new Array(3).fill(false);
          expect(cutToText(text, projection, served)).toBe(
            slow(text, ['kota', 'nama', 'menu']).json,
          );
        },
      ),
    );
  });

  it('keeps the last of a repeated key, as JSON.parse does', () => {
    const text = '{"nama": "Ayu", "kota": "Bogor", "nama": ["Budi", "Citra"]}';
    expect(cutToText(text, compileProjection(['nama']), [false])).toBe(slow(text, ['nama']).json);
  });

  it('keeps list items that are a comma and a space, in lists jsonb spaced', () => {
    const text = '{"nama": [", ", "Ayu", ", "]}';
    expect(cutToText(text, compileProjection(['nama']), [false])).toBe(
      '{"nama":[", ","Ayu",", "]}',
    );
  });

  it.each([
    ['{"nama":"Ayu\\"s"}', 'an escape'],
    ['{"nama":" "}', 'a blank answer'],
    ['{"nama":[]}', 'an empty list'],
    ['{"nama":3}', 'a number'],
    ['{"nama":"Ayu"} x', 'trailing text'],
  ])('leaves %s (%s) to the general path', (text) => {
    expect(cutToText(text, compileProjection(['nama']), [false])).toBeUndefined();
  });
});
