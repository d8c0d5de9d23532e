import type { GuestListHeadings } from './guest-list-files.ts';

/**
 * The words a guest-list file is written with, in each of the portal's languages: the downloads
 * take the holder's, a bucket delivery the English ones.
 */
export const GUEST_LIST_HEADINGS: Record<'id' | 'en', GuestListHeadings> = {
  id: {
    id: 'ID',
    submittedAt: 'Waktu kirim (Asia/Jakarta, UTC+7)',
    attendance: 'Kehadiran',
    attendanceWords: { YES: 'Hadir', NO: 'Tidak hadir', MAYBE: 'Mungkin' },
    summary: {
      sheet: 'Ringkasan',
      responses: 'Tanggapan',
      breakdowns: 'Jawaban',
      sums: 'Jumlah atas tamu yang hadir',
    },
  },
  en: {
    id: 'ID',
    submittedAt: 'Submitted (Asia/Jakarta, UTC+7)',
    attendance: 'Attendance',
    attendanceWords: { YES: 'Attending', NO: 'Not attending', MAYBE: 'Maybe' },
    summary: {
      sheet: 'Summary',
      responses: 'Responses',
      breakdowns: 'Answers',
      sums: 'Totals over the attending guests',
    },
  },
};
