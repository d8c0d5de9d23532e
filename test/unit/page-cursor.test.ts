import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RESPONDENT_POSITIONS } from '../../src/campaigns/pages/respondent-line.ts';
import { CursorCodec } from '../../src/paging/page-cursor.ts';

const KEY = Buffer.alloc(32, 7);
const codec = new CursorCodec(KEY, RESPONDENT_POSITIONS);
const cursor = {
  campaignId: 'nikah',
  sinceMs: 1_700_000_000_000,
  limit: 3,
  after: { submittedAt: 1_700_000_060_000, id: 'r2' },
  page: 2,
  narrowing: [] as Array<[string, string]>,
};

/** A cursor signed as this service signs them, around any payload. */
function signed(fields: unknown[]): string {
  const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
  const mac = createHmac('sha256', KEY).update(payload).digest().subarray(0, 16);
  return `${payload}.${mac.toString('base64url')}`;
}

describe('page cursors', () => {
  it('carry the list, campaign, since, limit, position and page they were issued for', () => {
    expect(codec.decode(codec.encode(cursor))).toEqual({
      kind: 'valid',
      list: 'respondents',
      cursor,
    });
    const noSince = { ...cursor, sinceMs: undefined };
    expect(codec.decode(codec.encode(noSince))).toMatchObject({ cursor: noSince });
  });

  it('carry the filters of their request, and keep the shorter format without any', () => {
    const filtered = {
      ...cursor,
      narrowing: [
        ['answers[menu]', '["Vegetarian"]'],
        ['attendanceStatus', 'YES'],
      ] as Array<[string, string]>,
    };
    expect(codec.decode(codec.encode(filtered))).toEqual({
      kind: 'valid',
      list: 'respondents',
      cursor: filtered,
    });
    const formatOf = (text: string) =>
      JSON.parse(Buffer.from(text.split('.')[0] as string, 'base64url').toString())[0];
    expect(formatOf(codec.encode(filtered))).toBe(3);
    expect(formatOf(codec.encode(cursor))).toBe(2);
    expect(
      codec.decode(signed([3, 'respondents', 'nikah', null, 3, 1, 'r2', 2, [['a', 1]]])),
    ).toEqual({ kind: 'forged' });
  });

  it('refuses one altered, signed under another key, or not signed at all', () => {
    const text = codec.encode(cursor);
    const [payload, mac] = text.split('.') as [string, string];
    const altered = JSON.parse(Buffer.from(payload, 'base64url').toString());
    altered[6] = 'r9';
    const forgeries = [
      `${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${mac}`,
      new CursorCodec(Buffer.alloc(32, 8), RESPONDENT_POSITIONS).encode(cursor),
      payload,
      `${payload}.`,
      signed([2, 'guests', 'nikah', null, 3, 1, 'r2', 2]),
      signed([2, 'respondents', 'nikah', null, 3, '1', 'r2', 2]),
    ];
    for (const forged of forgeries) expect(codec.decode(forged)).toEqual({ kind: 'forged' });
  });

  it('still reads the cursors of the first format, a removals one by its prefix', () => {
    const first = signed([1, 'nikah', null, 3, 60_000, 'r2', 2]);
    expect(codec.decode(first)).toEqual({
      kind: 'valid',
      list: 'respondents',
      cursor: {
        campaignId: 'nikah',
        sinceMs: undefined,
        limit: 3,
        after: { submittedAt: 60_000, id: 'r2' },
        page: 2,
        narrowing: [],
      },
    });
    const removals = signed([1, 'removals\u0000nikah', 5, 2, 60_000, 'r2', 3]);
    expect(codec.decode(removals)).toMatchObject({
      list: 'removals',
      cursor: { campaignId: 'nikah', sinceMs: 5 },
    });
  });
});
