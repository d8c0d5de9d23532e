import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { ProjectedRespondent } from '../../src/campaigns/pages/respondent-pages.ts';
import { type GuestListHeadings, writeXlsx } from '../../src/guest-list/guest-list-files.ts';
import { MESSAGES } from '../../src/portal-pages/messages.ts';

/** The workbook's words as the portal gives them in Indonesian. */
const HEADINGS: GuestListHeadings = MESSAGES.id.guestLists.headings;

const STATUSES = ['YES', 'NO', 'MAYBE', 'YES'] as const;
const MENUS = ['Sate', 'Soto', 'Vegetarian'];
/** Guests' answers to "how many come": mostly plain numbers, some as people also type them. */
const COUNTS = ['2', '1', '3', '007', '2 orang', '', '1.5', '-1'];

const guests = Array.from({ length: 40 }, (_, n) => ({
  id: `g${n}`,
  submittedAtMs: Date.UTC(2026, 10, 1, 3, n),
  attendanceStatus: STATUSES[n % STATUSES.length] as string,
  fields: {
    nama: n === 3 ? 'Ni Luh Putu Ayu Kusumawardhani' : `Tamu ${n}`,
    menu: MENUS[n % MENUS.length] as string,
    ...(COUNTS[n % COUNTS.length] ? { jumlah: COUNTS[n % COUNTS.length] as string } : {}),
  },
}));

async function workbookOf(): Promise<ExcelJS.Workbook> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeXlsx(
    {
      campaign: { title: 'Nikahan Sari & Budi' },
      fields: [
        { key: 'nama', label: 'Nama', type: 'TEXT' },
        { key: 'menu', label: 'Menu', type: 'RADIO' },
        { key: 'jumlah', label: 'Jumlah tamu', type: 'NUMBER' },
      ],
      async *respondents() {
        for (const guest of guests) yield guest as ProjectedRespondent;
      },
    },
    HEADINGS,
    out,
  );
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.concat(chunks) as never);
  return workbook;
}

describe('the guest list as a workbook', () => {
  it('adds up: plain numbers as numbers, times as times, attendance in words, a filter on the header', async () => {
    const workbook = await workbookOf();
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    expect(sheet.autoFilter).toBeDefined();
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    guests.forEach((guest, index) => {
      const row = sheet.getRow(index + 2);
      expect(row.getCell(2).value).toBeInstanceOf(Date);
      expect(row.getCell(3).value).toBe(
        HEADINGS.attendanceWords[guest.attendanceStatus as 'YES' | 'NO' | 'MAYBE'],
      );
      const typed = guest.fields.jumlah;
      const cell = row.getCell(6);
      if (typed === undefined) expect(cell.value ?? '').toBe('');
      else if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(typed)) expect(cell.value).toBe(Number(typed));
      // Anything else stays the text typed: a leading zero, a word beside the number.
      else expect(cell.value).toBe(typed);
    });
    expect(sheet.getRow(6).getCell(6).type).toBe(ExcelJS.ValueType.String); // '007'
    // Columns sized to their content: the longest name, the heading of the number question.
    expect(sheet.getColumn(4).width).toBe('Ni Luh Putu Ayu Kusumawardhani'.length + 2);
    expect(sheet.getColumn(6).width).toBe('Jumlah tamu'.length + 2);
  });

  it('sums it up on a second sheet: totals, each single choice, the numbers of the attending', async () => {
    const workbook = await workbookOf();
    const summary = workbook.getWorksheet('Ringkasan') as ExcelJS.Worksheet;
    const pairs = new Map<string, unknown>();
    summary.eachRow((row) => {
      const [label, value] = (row.values as unknown[]).slice(1);
      if (typeof label === 'string') pairs.set(label, value);
    });
    const count = (status: string) => guests.filter((g) => g.attendanceStatus === status).length;
    expect(pairs.get('Tanggapan')).toBe(guests.length);
    expect(pairs.get('Hadir')).toBe(count('YES'));
    expect(pairs.get('Tidak hadir')).toBe(count('NO'));
    expect(pairs.get('Mungkin')).toBe(count('MAYBE'));
    for (const menu of MENUS) {
      expect(pairs.get(menu)).toBe(guests.filter((g) => g.fields.menu === menu).length);
    }
    const attendingTotal = guests
      .filter((g) => g.attendanceStatus === 'YES')
      .map((g) => g.fields.jumlah ?? '')
      .filter((typed) => /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(typed))
      .reduce((sum, typed) => sum + Number(typed), 0);
    expect(attendingTotal).toBeGreaterThan(0);
    expect(pairs.get('Jumlah tamu')).toBe(attendingTotal);
    expect(pairs.has('Jawaban: Menu')).toBe(true);
    expect(pairs.has('Jumlah atas tamu yang hadir')).toBe(true);
  });
});
