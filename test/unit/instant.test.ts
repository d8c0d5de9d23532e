import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInstant, toIso } from '../../src/instant.ts';

const at = (iso: string) => Date.parse(iso);

describe('parseInstant', () => {
  it.each([
    ['2026-11-22T08:00:00Z', '2026-11-22T08:00:00.000Z'],
    ['2026-11-22T08:00:00.123Z', '2026-11-22T08:00:00.123Z'],
    ['2026-11-22T15:00:00+07:00', '2026-11-22T08:00:00.000Z'],
    ['2026-11-22T15:00:00+0700', '2026-11-22T08:00:00.000Z'],
    ['2026-11-22T15:00:00+07', '2026-11-22T08:00:00.000Z'],
    ['2026-11-22T03:30:00-04:30', '2026-11-22T08:00:00.000Z'],
    ['2026-11-22T08:00Z', '2026-11-22T08:00:00.000Z'],
    ['2026-11-22t08:00:00z', '2026-11-22T08:00:00.000Z'],
    ['2026-11-22T08:00:00,5Z', '2026-11-22T08:00:00.500Z'],
    ['20261122T150000+0700', '2026-11-22T08:00:00.000Z'],
    ['20261122T080000.25Z', '2026-11-22T08:00:00.250Z'],
    ['2026-11-22T15:00:00 07:00', '2026-11-22T08:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('reads %s as the instant %s', (text, expected) => {
    expect(parseInstant(text)).toBe(at(expected));
  });

  it('drops digits past the millisecond, which selects the same rows for "strictly after"', () => {
    expect(parseInstant('2026-11-22T08:00:00.123999Z')).toBe(at('2026-11-22T08:00:00.123Z'));
  });

  it.each([
    'yesterday',
    '2026-11-22',
    '2026-11-22T08:00:00',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-11-31T00:00:00Z',
    '2026-11-22T24:00:00Z',
    '2026-11-22T08:60:00Z',
    '2026-11-22T08:00:60Z',
    '2026-11-22T08:00:00+24:00',
    '2026-11-22T08:00:00.Z',
    ' 2026-11-22T08:00:00Z',
    '1795352040000',
  ])('rejects %s', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });
});

describe('toIso', () => {
  it('formats exactly like Date#toISOString across days, years and the edges of its fast path', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), (ms) => {
        expect(toIso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 5000 },
    );
    for (const ms of [0, 999, 1000, 86_399_999, 86_400_000, 951_782_400_000, 253_402_300_799_999]) {
      expect(toIso(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
