import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../src/campaigns/pages/byte-writer.ts';

describe('ByteWriter', () => {
  it('writes any text, a range at a time, as Buffer.from encodes each range', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 6 }), fc.nat(), (pieces, cut) => {
        // A small start makes it grow; each piece goes in as two ranges, split anywhere.
        const out = new ByteWriter(4);
        const expected: Buffer[] = [];
        for (const piece of pieces) {
          const at = piece.length === 0 ? 0 : cut % piece.length;
          out.reserve(piece.length);
          out.range(piece, 0, at);
          out.range(piece, at, piece.length);
          expected.push(Buffer.from(piece.slice(0, at)), Buffer.from(piece.slice(at)));
        }
        expect(out.finish()).toEqual(Buffer.concat(expected));
      }),
      { numRuns: 2000 },
    );
  });

  it('starts over with a buffer of the kept size after a large page', () => {
    const out = new ByteWriter(8);
    out.text('é'.repeat(100));
    out.reset(8);
    out.text('ab');
    out.digits(7, 3);
    expect(out.finish().toString()).toBe('ab007');
  });
});
