import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell } from '../../packages/sync/src/export.ts';
import { neutralised } from '../../src/guest-list/guest-list-files.ts';

/** Texts a spreadsheet would run as a formula, the look-alikes and hidden spaces included. */
const FORMULAS = [
  '=1+1',
  '+62812',
  '-2+3',
  '@SUM(A1)',
  '\t=1',
  '＝1+1',
  '＋1',
  '－1',
  '＠A1',
  ' =1+1',
  '\u00a0=1+1',
  '\u200b=HYPERLINK("x")',
  '\ufeff+1',
  // Small and full-width look-alikes, the minus sign, and a pipe (DDE).
  '\ufe66cmd',
  '\ufe62cmd',
  '\ufe63cmd',
  '\uff5ccmd',
  '\u22121',
  '|cmd',
  // Separators and controls a spreadsheet skips before it looks.
  '\u3000=1+1',
  '\n=1+1',
  '\v=1+1',
  '\f=1+1',
  '\u2002=1+1',
  '\u2003=1+1',
  '\u2009=1+1',
  '\u202f=1+1',
  '\u1680=1+1',
  '\u0000=1+1',
  '\ud800=1+1',
];
const PLAIN = ['Sari', 'a=b', '08123', 'Vegetarian - no nuts', ' Sari', '\u3000Sari', '(+62) 812'];

/** Every code point of the BMP in a Unicode general category, as characters. */
function categoryOf(pattern: RegExp): string[] {
  const found: string[] = [];
  for (let point = 0; point < 0x10000; point++) {
    // Lone surrogates are category C too, and a spreadsheet skips them as well.
    const char = String.fromCharCode(point);
    if (pattern.test(char)) found.push(char);
  }
  return found;
}

// Surrogates apart: two drawn side by side may pair into a visible character (a lone one is
// among FORMULAS).
const INVISIBLE = categoryOf(/^[\p{Z}\p{C}]$/u).filter(
  (char) => char !== '\t' && char !== '\r' && !/[\ud800-\udfff]/.test(char),
);
const STARTERS = [
  '=',
  '+',
  '-',
  '@',
  '|',
  '\u2212',
  '＝',
  '＋',
  '－',
  '＠',
  '｜',
  '﹦',
  '﹢',
  '﹣',
];

const guarded = (text: string) => {
  expect(neutralised(text), JSON.stringify(text)).toBe(`'${text}`);
  expect(csvCell(text).replace(/^"|"$/g, ''), JSON.stringify(text)).toMatch(/^'/);
};

describe('the formula guard of files people open in spreadsheets', () => {
  it('defuses every start of a formula, the look-alikes and hidden leads too', () => {
    for (const text of FORMULAS) guarded(text);
  });

  it('leaves other text as it was typed', () => {
    for (const text of PLAIN) {
      expect(neutralised(text)).toBe(text);
      expect(csvCell(text)).toBe(text);
    }
  });

  it('guards by rule: any run of separators and controls, then a start of a formula', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...INVISIBLE), { maxLength: 4 }),
        fc.constantFrom(...STARTERS),
        fc.string({ maxLength: 8 }),
        (lead, starter, rest) => guarded(`${lead.join('')}${starter}${rest}`),
      ),
      { numRuns: 2_000 },
    );
  });

  it('guards a tab or carriage return anywhere in the lead, and nothing else it hides', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...INVISIBLE), { maxLength: 3 }),
        fc.constantFrom('\t', '\r'),
        fc.stringMatching(/^[A-Za-z0-9 ]{0,8}$/),
        (lead, control, rest) => guarded(`${lead.join('')}${control}${rest}`),
      ),
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...INVISIBLE), { maxLength: 3 }),
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ]{0,8}$/),
        (lead, text) => {
          const cell = `${lead.join('')}${text}`;
          expect(neutralised(cell), JSON.stringify(cell)).toBe(cell);
        },
      ),
    );
  });
});
