import { describe, expect, it } from 'vitest';
import type { Position } from '../../src/campaigns/pages/respondent-pages.ts';
import { type CachedAnswer, responseCacheKey } from '../../src/campaigns/response-cache-key.ts';
import type { PageQuery } from '../../src/paging/page-query.ts';

const CAMPAIGN = { id: 'nikah', version: 7 };
const PROJECTION = { identity: JSON.stringify(['nama', 'menu']) };

/** A query with every field set, so that each can be changed. */
const FULL_QUERY: Required<PageQuery<Position>> = {
  page: 3,
  limit: 50,
  sinceMs: Date.parse('2026-11-01T00:00:00Z'),
  narrowing: [
    ['answers[menu]', 'Sate'],
    ['attendance', 'YES'],
  ],
  after: { submittedAt: Date.parse('2026-11-02T00:00:00Z'), id: 'r42' },
};

/** Every way of changing one leaf of `value`: each path, with a value unlike the one there. */
function oneLeafChanged(
  value: unknown,
  path: string[] = [],
): Array<{ path: string; value: unknown }> {
  if (Array.isArray(value)) {
    return [
      { path: `${path.join('.')}[+]`, value: [...value, value[0] ?? 'x'] },
      ...value.flatMap((item, index) =>
        oneLeafChanged(item, [...path, String(index)]).map((changed) => ({
          path: changed.path,
          value: value.map((other, at) => (at === index ? changed.value : other)),
        })),
      ),
    ];
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, inner]) =>
      oneLeafChanged(inner, [...path, name]).map((changed) => ({
        path: changed.path,
        value: { ...value, [name]: changed.value },
      })),
    );
  }
  const changed = typeof value === 'number' ? value + 1 : `${String(value)}x`;
  return [{ path: path.join('.'), value: changed }];
}

describe('the response cache key', () => {
  const key = (asked: CachedAnswer) => responseCacheKey(CAMPAIGN, PROJECTION, asked);

  it('differs for every field of a page query, however deep, and for none left out', () => {
    const base = key({ answer: 'respondents', query: FULL_QUERY });
    const variants = oneLeafChanged(FULL_QUERY);
    // Each field of the query, and each leaf inside its filter and cursor position.
    expect(variants.map((variant) => variant.path)).toEqual(
      expect.arrayContaining(['page', 'limit', 'sinceMs', 'after.submittedAt', 'after.id']),
    );
    expect(variants.some((variant) => variant.path.startsWith('narrowing.0.'))).toBe(true);
    for (const variant of variants) {
      const changed = key({
        answer: 'respondents',
        query: variant.value as PageQuery<Position>,
      });
      expect(changed, variant.path).not.toBe(base);
    }
    // Without the cursor's place (page 1 by number) is another answer than after it.
    const { after: _after, ...byNumber } = FULL_QUERY;
    expect(key({ answer: 'respondents', query: byNumber })).not.toBe(base);
  });

  it('differs by campaign, version, allow-list and kind of answer, and is equal for equal asks', () => {
    const summary: CachedAnswer = { answer: 'summary', narrowing: FULL_QUERY.narrowing };
    const base = key(summary);
    expect(key({ answer: 'summary', narrowing: [...FULL_QUERY.narrowing] })).toBe(base);
    expect(key({ answer: 'summary', narrowing: [] })).not.toBe(base);
    expect(key({ answer: 'fields' })).not.toBe(base);
    expect(responseCacheKey({ ...CAMPAIGN, version: 8 }, PROJECTION, summary)).not.toBe(base);
    expect(responseCacheKey({ ...CAMPAIGN, id: 'arisan' }, PROJECTION, summary)).not.toBe(base);
    expect(responseCacheKey(CAMPAIGN, { identity: '["nama"]' }, summary)).not.toBe(base);
  });
});
