import { GUEST_LIST_HEADINGS } from '../guest-list/guest-list-headings.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../time-units.ts';

/**
 * The guest lists' words, both languages side by side: the page an organiser lands on, its
 * downloads, and the file's own headings. Plain words only: the people reading them organise
 * events, they do not call APIs.
 */
const en = {
  title: 'Guest lists',
  intro:
    'The guest lists your keys may read. A download holds what the key reads: the guests, with the questions it may read, times in Asia/Jakarta.',
  none: 'No guest lists yet: none of your keys reads a campaign now. Your operator gives keys their campaigns.',
  guests: (guests: number, attending: number) =>
    `${guests.toLocaleString('en')} ${guests === 1 ? 'guest' : 'guests'}, ${attending.toLocaleString('en')} attending`,
  lastChange: (ago: string, at: string) => `Last change ${ago} (${at})`,
  /** How long ago, in the largest whole unit. */
  ago: (ms: number) => {
    if (ms < MINUTE_MS) return 'just now';
    if (ms < HOUR_MS) {
      const minutes = Math.floor(ms / MINUTE_MS);
      return minutes === 1 ? '1 minute ago' : `${minutes} minutes ago`;
    }
    if (ms < 2 * DAY_MS) {
      const hours = Math.floor(ms / HOUR_MS);
      return hours === 1 ? '1 hour ago' : `${hours} hours ago`;
    }
    return `${Math.floor(ms / DAY_MS)} days ago`;
  },
  /** What tells one of a campaign's different files from the others: the questions it has or lacks. */
  fileDiffers: (adds: readonly string[], lacks: readonly string[]) =>
    `${[
      adds.length > 0 ? `With ${adds.join(', ')}` : '',
      lacks.length > 0 ? `${adds.length > 0 ? 'without' : 'Without'} ${lacks.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ')}:`,
  forDevelopers:
    'For developers: keys, their use, change notifications and packages are under “Keys” and “Get started”.',
  downloadExcel: 'Download (Excel)',
  downloadCsv: 'Download (CSV)',
  downloadLabel: (format: string, title: string) => `Download ${title} as ${format}`,
  downloadHint:
    'A download holds what this key reads: its guests, with the questions above, times in Asia/Jakarta. It counts as one request of the key.',
  downloadRefusedTitle: 'The guest list was not downloaded',
  downloadForbidden:
    'This key reads nothing of this campaign now: it was revoked or expired, or the campaign left its scope.',
  downloadRateLimited: (wait: string) =>
    `This key has used its requests for this minute. Try again in ${wait}.`,
  downloadBusy: (files: number) =>
    files === 1
      ? 'A guest list is being made for your account. Try again once it has finished downloading.'
      : `${files} guest lists are being made for your account. Try again once one has finished downloading.`,
  headings: GUEST_LIST_HEADINGS.en,
};

export type GuestListWords = typeof en;

const id: GuestListWords = {
  title: 'Daftar tamu',
  intro:
    'Daftar tamu yang boleh dibaca kunci Anda. Unduhan berisi yang dibaca kunci itu: para tamu, dengan pertanyaan yang boleh dibacanya, waktu dalam Asia/Jakarta.',
  none: 'Belum ada daftar tamu: kini tidak ada kunci Anda yang membaca kampanye. Operator Anda yang memberi kunci kampanyenya.',
  guests: (guests, attending) =>
    `${guests.toLocaleString('id')} tamu, ${attending.toLocaleString('id')} hadir`,
  lastChange: (ago, at) => `Perubahan terakhir ${ago} (${at})`,
  ago: (ms) => {
    if (ms < MINUTE_MS) return 'baru saja';
    if (ms < HOUR_MS) return `${Math.floor(ms / MINUTE_MS)} menit lalu`;
    if (ms < 2 * DAY_MS) return `${Math.floor(ms / HOUR_MS)} jam lalu`;
    return `${Math.floor(ms / DAY_MS)} hari lalu`;
  },
  fileDiffers: (adds, lacks) =>
    `${[
      adds.length > 0 ? `Dengan ${adds.join(', ')}` : '',
      lacks.length > 0 ? `${adds.length > 0 ? 'tanpa' : 'Tanpa'} ${lacks.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ')}:`,
  forDevelopers:
    'Untuk pengembang: kunci, pemakaiannya, pemberitahuan perubahan, dan paket ada di “Kunci” dan “Mulai”.',
  downloadExcel: 'Unduh (Excel)',
  downloadCsv: 'Unduh (CSV)',
  downloadLabel: (format, title) => `Unduh ${title} sebagai ${format}`,
  downloadHint:
    'Unduhan berisi yang dibaca kunci ini: tamunya, dengan pertanyaan di atas, waktu dalam Asia/Jakarta. Dihitung sebagai satu permintaan kunci.',
  downloadRefusedTitle: 'Daftar tamu tidak diunduh',
  downloadForbidden:
    'Kunci ini kini tidak membaca apa pun dari kampanye ini: kunci dicabut atau kedaluwarsa, atau kampanye keluar dari cakupannya.',
  downloadRateLimited: (wait) =>
    `Kunci ini sudah memakai jatah permintaannya untuk menit ini. Coba lagi dalam ${wait}.`,
  downloadBusy: (files) =>
    files === 1
      ? 'Sebuah daftar tamu sedang dibuat untuk akun Anda. Coba lagi setelah selesai diunduh.'
      : `${files} daftar tamu sedang dibuat untuk akun Anda. Coba lagi setelah salah satunya selesai diunduh.`,
  headings: GUEST_LIST_HEADINGS.id,
};

export const GUEST_LIST_WORDS = { id, en };
