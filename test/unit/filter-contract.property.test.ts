import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { filterQuery } from '../../packages/client/src/filters.ts';
import { apiFilter, filterShape } from '../../packages/mcp/src/guest-filter.ts';
import {
  filterOf,
  MAX_FILTER_VALUE_LENGTH,
  MAX_FILTER_VALUES,
  narrowingOf,
} from '../../src/campaigns/respondent-filter.ts';

/**
 * The respondent filter travels through three descriptions of it: an agent's arguments (the MCP
 * tools' zod shape), the SDK's filter and its query parameters, and the server's reading of
 * them. A filter within the server's limits must pass all three and arrive as the same tests;
 * this fails when one of them drifts from the others.
 */

const FIELDS = [
  { key: 'menu', label: 'Menu', type: 'RADIO', position: 1 },
  { key: 'alergi', label: 'Alergi', type: 'CHECKBOX', position: 2 },
];
const STATUSES = ['YES', 'NO', 'MAYBE'] as const;

/** A value the server takes: 1 to MAX_FILTER_VALUE_LENGTH characters, no NUL. */
const value = fc.oneof(
  fc
    .string({ minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH })
    .filter((text) => !text.includes('\u0000')),
  fc.constantFrom('Vegetarian', 'kacang', 'a'.repeat(MAX_FILTER_VALUE_LENGTH), 'x, y', '50%'),
);
const test = fc.oneof(
  fc.record({ equals: fc.array(value, { minLength: 1, maxLength: 6 }) }),
  fc.record({ contains: value }),
);
const input = fc
  .record(
    {
      attendanceStatus: fc.oneof(
        fc.constantFrom(...STATUSES),
        fc.uniqueArray(fc.constantFrom(...STATUSES), { minLength: 1 }),
      ),
      answers: fc.dictionary(fc.constantFrom('menu', 'alergi'), test, { maxKeys: 2 }),
    },
    { requiredKeys: [] },
  )
  .filter((filter) => {
    const values = Object.values(filter.answers ?? {}).reduce(
      (sum, one) => sum + ('equals' in one ? one.equals.length : 1),
      0,
    );
    return values <= MAX_FILTER_VALUES;
  });

describe('the respondent filter, from an agent through the SDK to the server', () => {
  it('arrives as the tests the agent asked for, whatever the values', () => {
    const tools = z.strictObject(filterShape);
    fc.assert(
      fc.property(input, (asked) => {
        // The tools take it as it is.
        expect(tools.safeParse(asked).success).toBe(true);
        const filter = apiFilter(asked, FIELDS, 'c');
        const narrowing = narrowingOf(filterQuery(filter));
        const served = filterOf(narrowing, new Set(FIELDS.map((field) => field.key)));
        const statuses =
          asked.attendanceStatus === undefined
            ? undefined
            : STATUSES.filter((status) => [asked.attendanceStatus].flat().includes(status));
        const tests = Object.entries(asked.answers ?? {})
          .map(([fieldKey, one]) => ({
            fieldKey,
            match: 'equals' in one ? 'equals' : 'contains',
            values: [...new Set('equals' in one ? one.equals : [one.contains])].sort(),
          }))
          .sort((a, b) => (a.fieldKey < b.fieldKey ? -1 : 1));
        if (statuses === undefined && tests.length === 0) {
          expect(served).toBeUndefined();
          return;
        }
        expect({
          statuses: served?.statuses,
          tests: [...(served?.tests ?? [])]
            .map((one) => ({ ...one, values: [...one.values].sort() }))
            .sort((a, b) => (a.fieldKey < b.fieldKey ? -1 : 1)),
        }).toEqual({ statuses, tests });
      }),
      { numRuns: 2_000 },
    );
  });
});
