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
];
const PLAIN = ['Sari', 'a=b', '08123', 'Vegetarian - no nuts', ' Sari'];

describe('the formula guard of files people open in spreadsheets', () => {
  it('defuses every start of a formula, the full-width and space-led look-alikes too', () => {
    for (const text of FORMULAS) {
      expect(neutralised(text), JSON.stringify(text)).toBe(`'${text}`);
      expect(csvCell(text).replace(/^"|"$/g, ''), JSON.stringify(text)).toMatch(/^'/);
    }
  });

  it('leaves other text as it was typed', () => {
    for (const text of PLAIN) {
      expect(neutralised(text)).toBe(text);
      expect(csvCell(text)).toBe(text);
    }
  });
});
