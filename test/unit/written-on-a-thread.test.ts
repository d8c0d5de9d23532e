import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { WholeCampaign } from '../../src/campaigns/campaigns.service.ts';
import type { ProjectedRespondent } from '../../src/campaigns/pages/respondent-line.ts';
import { ReaderGone } from '../../src/guest-list/file-source.ts';
import { writeGuestList } from '../../src/guest-list/guest-list-files.ts';
import { writeOnThread } from '../../src/guest-list/written-on-a-thread.ts';

const HEADINGS = {
  id: 'ID',
  submittedAt: 'Dikirim (WIB)',
  attendance: 'Kehadiran',
  attendanceWords: { YES: 'Hadir', NO: 'Tidak hadir', MAYBE: 'Mungkin' },
  summary: { sheet: 'Ringkasan', responses: 'Tanggapan', breakdowns: 'Jawaban', sums: 'Jumlah' },
};

/**
 * A campaign of `count` guests, its rows made as they are read; `reads` tells how far the reading
 * got and whether it was ended. A row past `failAt` fails the read, as a lost store would.
 */
function campaignOf(count: number, failAt = Number.POSITIVE_INFINITY) {
  const reads = { rows: 0, ended: false };
  const whole: WholeCampaign = {
    campaign: {
      id: 'nikah',
      slug: 'nikah',
      title: 'Nikahan Sari & Budi',
      eventDate: null,
      location: null,
      deletedAt: null,
      responses: count,
      attending: count,
      notAttending: 0,
      maybe: 0,
      version: 1,
    },
    fields: [
      { key: 'nama', label: 'Nama', type: 'TEXT', position: 0 },
      { key: 'menu', label: 'Menu', type: 'CHECKBOX', position: 1 },
    ],
    async *respondents(): AsyncGenerator<ProjectedRespondent> {
      try {
        for (let n = 0; n < count; n += 1) {
          if (n >= failAt) throw new Error('the store went away');
          reads.rows = n + 1;
          yield {
            id: `r${String(n).padStart(6, '0')}`,
            submittedAtMs: Date.UTC(2026, 8, 1) + n * 60_000,
            attendanceStatus: n % 3 === 0 ? 'NO' : 'YES',
            // Formulas and quotes, so the thread's file must neutralise and quote as the other.
            fields: { nama: n % 7 === 0 ? `=Tamu "${n}"` : `Tamu ${n}`, menu: ['Sate', 'Soto'] },
          };
        }
      } finally {
        reads.ended = true;
      }
    },
  };
  return { whole, reads };
}

async function collected(
  write: (out: Writable) => Promise<number>,
): Promise<{ rows: number; bytes: Buffer }> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const rows = await write(out);
  out.end();
  return { rows, bytes: Buffer.concat(chunks) };
}

describe('a guest list written on a thread of its own', () => {
  it('is byte for byte the file the serving thread writes, across many reads', async () => {
    const count = 1_234;
    const onThread = await collected((out) =>
      writeOnThread('csv', campaignOf(count).whole, HEADINGS, out),
    );
    const here = await collected((out) =>
      writeGuestList('csv', campaignOf(count).whole, HEADINGS, out),
    );
    expect(onThread.rows).toBe(count);
    expect(onThread.bytes.equals(here.bytes)).toBe(true);
    expect(onThread.bytes.toString('utf8').split('\r\n')).toHaveLength(count + 2);
  });

  it('stops reading once the reader has gone', async () => {
    const { whole, reads } = campaignOf(200_000);
    let taken = 0;
    const out = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        taken += chunk.length;
        // The reader takes a first part, then goes away.
        if (taken > 100_000) this.destroy();
        done();
      },
    });
    await expect(writeOnThread('xlsx', whole, HEADINGS, out)).rejects.toBeInstanceOf(ReaderGone);
    expect(reads.ended).toBe(true);
    expect(reads.rows).toBeLessThan(200_000);
  });

  it('fails the file when its rows cannot be read, and ends the read', async () => {
    const { whole, reads } = campaignOf(5_000, 1_700);
    await expect(collected((out) => writeOnThread('csv', whole, HEADINGS, out))).rejects.toThrow(
      'the store went away',
    );
    expect(reads.ended).toBe(true);
  });

  it('counts the rows in the file as it grows', async () => {
    const heard: number[] = [];
    const { rows } = await collected((out) =>
      writeOnThread('xlsx', campaignOf(1_100).whole, HEADINGS, out, (n) => heard.push(n)),
    );
    expect(rows).toBe(1_100);
    expect(heard.at(-1)).toBe(1_100);
    expect(heard).toEqual([...heard].sort((a, b) => a - b));
  });
});
