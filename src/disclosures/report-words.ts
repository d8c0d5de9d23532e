import type { Door } from './disclosure.ts';

/** The languages a report is written in: Bahasa Indonesia (the default) and English. */
export type ReportLanguage = 'id' | 'en';

/** Every word of the reports, in each language. */
export const REPORT_WORDS = {
  id: {
    doors: {
      api: 'API data (halaman responden)',
      changes: 'umpan perubahan API data',
      removals: 'umpan penghapusan API data',
      mcp: 'alat MCP (asisten AI)',
      download: 'unduhan daftar tamu di portal',
      delivery: 'pengiriman terjadwal ke penyimpanan (bucket) mitra',
      notification: 'pemberitahuan (webhook)',
    } satisfies Record<Door, string>,
    attendance: { YES: 'Hadir', NO: 'Tidak hadir', MAYBE: 'Mungkin' } as Record<string, string>,
    respondentTitle: 'LAPORAN DATA PRIBADI DAN REKAM JEJAK PEMROSESAN',
    respondentBasis:
      'Jawaban atas permintaan akses subjek data (UU No. 27 Tahun 2022 tentang Pelindungan Data Pribadi, Pasal 32).',
    madeAt: (when: string) => `Dibuat ${when}.`,
    subject: (id: string, campaign: string) => `Subjek data: responden ${id}, ${campaign}.`,
    campaignNamed: (title: string, id: string) => `RSVP "${title}" (${id})`,
    campaignUnknown: 'kampanye yang tidak lagi dikenal',
    heldHeading: '1. Data Anda yang kami simpan saat ini',
    submittedAt: 'Dikirim atau diubah terakhir',
    attendanceLabel: 'Kehadiran',
    noAnswers: '(tidak ada jawaban lain)',
    erased: (when: string) =>
      `Data Anda telah dihapus atas permintaan pada ${when}: tidak ada jawaban Anda yang tersisa di Hadir.`,
    removed: (when: string) =>
      `Data Anda telah dihapus dari kampanye ini pada ${when}: tidak ada jawaban Anda yang tersisa di Hadir.`,
    notHeld: 'Hadir tidak menyimpan data Anda (lagi).',
    recordKept:
      'Catatan tentang siapa yang menerima data Anda tetap disimpan, berisi nomor responden, nama kolom dan waktu saja (tanpa jawaban Anda), agar laporan ini tetap dapat diberikan.',
    recipientsHeading: '2. Penerima data Anda',
    noRecipients: 'Tidak ada pihak ketiga yang menerima data Anda melalui Hadir.',
    recipient: (index: number, who: string, label: string, keyId: string) =>
      `2.${index} ${who}, melalui kunci akses "${label}" (${keyId})`,
    doorLine: (door: string, fields: string, first: string, last: string, count: number) =>
      `- ${door}: ${fields}; pertama ${first}, terakhir ${last}, ${count} kali`,
    idOnly: 'hanya nomor responden (pemberitahuan penghapusan)',
    rowWith: (fields: string) => `baris Anda, dengan kolom yang boleh dibacanya: ${fields}`,
    rowWithout: 'baris Anda tanpa jawaban (nomor, waktu, kehadiran)',
    reached: (door: string, when: string) =>
      `Penghapusan Anda sampai kepadanya pada ${when}, melalui ${door}.`,
    notReached:
      'Belum diketahui apakah penghapusan Anda sampai kepadanya: salinan yang ia simpan mungkin masih ada. Operator akan menghubunginya.',
    filesTaken: (when: string) =>
      `Berkas yang ia unduh sebelum penghapusan tidak dapat ditarik kembali (diunduh ${when}).`,
    rowFacts:
      'Setiap baris yang diserahkan juga memuat nomor responden, waktu kirim dan status kehadiran Anda.',
    keyTitle: 'LAPORAN PAPARAN KUNCI AKSES',
    keyBasis:
      'Untuk pemberitahuan kegagalan pelindungan data pribadi (UU No. 27 Tahun 2022, Pasal 46).',
    keyLine: (label: string, keyId: string, who: string) =>
      `Kunci: "${label}" (${keyId}) milik ${who}.`,
    chainLine: (keys: string) => `Rantai rotasi: ${keys}.`,
    windowLine: (from: string, to: string) => `Jangka waktu: ${from} sampai ${to}.`,
    recordStart: 'awal catatan',
    revokedLine: (when: string) => `Kunci dicabut pada ${when}.`,
    notRevoked: (keyId: string) =>
      `Kunci ini masih berlaku: cabut dahulu (./bin/hadir keys revoke ${keyId}).`,
    totals: (respondents: number, campaigns: number, lines: number) =>
      `${respondents} responden dari ${campaigns} kampanye, dalam ${lines} jawaban.`,
    campaignTotals: (campaign: string, respondents: number) =>
      `${campaign}: ${respondents} responden`,
    fieldCount: (field: string, respondents: number) => `  - ${field}: ${respondents} responden`,
    respondentsHeading: 'Responden (nomor, kampanye, kolom, pertama, terakhir, pintu)',
    noticesHeading: 'Draf pemberitahuan kepada subjek data (Pasal 46)',
    noticeTo: 'Dikirim kepada:',
    notice: (n: {
      campaign: string;
      data: string;
      partner: string;
      label: string;
      first: string;
      last: string;
      action: string;
    }) =>
      [
        'Yth. tamu,',
        `Kami memberitahukan kegagalan pelindungan data pribadi Anda yang Anda berikan melalui ${n.campaign}.`,
        `Data yang terungkap: ${n.data}.`,
        `Kapan dan bagaimana: antara ${n.first} dan ${n.last} data tersebut diserahkan melalui kunci akses "${n.label}" milik mitra kami ${n.partner}; kunci itu bocor dan mungkin telah dipakai pihak yang tidak berwenang.`,
        `Yang telah kami lakukan: ${n.action}`,
        'Jika Anda ingin mengetahui lebih lanjut atau meminta data Anda dihapus, balas surat ini.',
      ].join('\n'),
    actionRevoked: (when: string) =>
      `kunci tersebut dicabut pada ${when}, sehingga tidak dapat lagi membaca data apa pun; kami meminta mitra menghapus salinannya.`,
    actionPending: '[tuliskan tindakan Anda: cabut kunci terlebih dahulu]',
    rowFactsShort: 'nomor responden, waktu kirim, status kehadiran',
  },
  en: {
    doors: {
      api: 'data API (respondent pages)',
      changes: "the data API's changes feed",
      removals: "the data API's removals feed",
      mcp: 'MCP tools (an AI assistant)',
      download: 'a guest-list download from the portal',
      delivery: "a scheduled delivery to the partner's bucket",
      notification: 'a notification (webhook)',
    } satisfies Record<Door, string>,
    attendance: { YES: 'Attending', NO: 'Not attending', MAYBE: 'Maybe' } as Record<string, string>,
    respondentTitle: 'YOUR PERSONAL DATA AND ITS PROCESSING TRAIL',
    respondentBasis:
      "Answer to a data subject's access request (Indonesia's Personal Data Protection Law, Law 27 of 2022, Article 32).",
    madeAt: (when: string) => `Made ${when}.`,
    subject: (id: string, campaign: string) => `Data subject: respondent ${id}, ${campaign}.`,
    campaignNamed: (title: string, id: string) => `RSVP "${title}" (${id})`,
    campaignUnknown: 'a campaign no longer known',
    heldHeading: '1. Your data as we hold it now',
    submittedAt: 'Sent or last changed',
    attendanceLabel: 'Attendance',
    noAnswers: '(no other answers)',
    erased: (when: string) =>
      `Your data was erased at your request on ${when}: none of your answers remain in Hadir.`,
    removed: (when: string) =>
      `Your data was removed from this campaign on ${when}: none of your answers remain in Hadir.`,
    notHeld: 'Hadir holds no data of yours (any more).',
    recordKept:
      'The record of who received your data is kept, with your respondent number, the names of fields and times only (none of your answers), so that this report can still be given.',
    recipientsHeading: '2. Who received your data',
    noRecipients: 'No third party received your data through Hadir.',
    recipient: (index: number, who: string, label: string, keyId: string) =>
      `2.${index} ${who}, with the access key "${label}" (${keyId})`,
    doorLine: (door: string, fields: string, first: string, last: string, count: number) =>
      `- ${door}: ${fields}; first ${first}, last ${last}, ${count} ${count === 1 ? 'time' : 'times'}`,
    idOnly: 'your respondent number only (a removal notice)',
    rowWith: (fields: string) => `your row, with the fields it may read: ${fields}`,
    rowWithout: 'your row without answers (number, time, attendance)',
    reached: (door: string, when: string) =>
      `Your removal reached them on ${when}, through ${door}.`,
    notReached:
      'It is not known whether your removal reached them: a copy they keep may remain. The operator will contact them.',
    filesTaken: (when: string) =>
      `A file they downloaded before your removal cannot be recalled (downloaded ${when}).`,
    rowFacts:
      'Every row handed over also carries your respondent number, time sent and attendance.',
    keyTitle: 'ACCESS KEY EXPOSURE REPORT',
    keyBasis: 'For notices of a personal data protection failure (Law 27 of 2022, Article 46).',
    keyLine: (label: string, keyId: string, who: string) =>
      `Key: "${label}" (${keyId}) held by ${who}.`,
    chainLine: (keys: string) => `Rotation chain: ${keys}.`,
    windowLine: (from: string, to: string) => `Window: ${from} to ${to}.`,
    recordStart: 'the start of the record',
    revokedLine: (when: string) => `The key was revoked on ${when}.`,
    notRevoked: (keyId: string) =>
      `This key is still in force: revoke it first (./bin/hadir keys revoke ${keyId}).`,
    totals: (respondents: number, campaigns: number, lines: number) =>
      `${respondents} ${respondents === 1 ? 'respondent' : 'respondents'} of ${campaigns} ${campaigns === 1 ? 'campaign' : 'campaigns'}, in ${lines} ${lines === 1 ? 'answer' : 'answers'}.`,
    campaignTotals: (campaign: string, respondents: number) =>
      `${campaign}: ${respondents} respondents`,
    fieldCount: (field: string, respondents: number) => `  - ${field}: ${respondents} respondents`,
    respondentsHeading: 'Respondents (number, campaign, fields, first, last, doors)',
    noticesHeading: 'Draft notices to the data subjects (Article 46)',
    noticeTo: 'To be sent to:',
    notice: (n: {
      campaign: string;
      data: string;
      partner: string;
      label: string;
      first: string;
      last: string;
      action: string;
    }) =>
      [
        'Dear guest,',
        `We are writing to tell you of a failure to protect personal data you gave us through ${n.campaign}.`,
        `The data concerned: ${n.data}.`,
        `When and how: between ${n.first} and ${n.last} it was handed over through the access key "${n.label}" of our partner ${n.partner}; that key leaked and may have been used by someone not entitled to it.`,
        `What we have done: ${n.action}`,
        'If you want to know more, or want your data erased, reply to this letter.',
      ].join('\n'),
    actionRevoked: (when: string) =>
      `the key was revoked on ${when}, so it reads nothing any more; we have asked our partner to delete its copy.`,
    actionPending: '[write what you did: revoke the key first]',
    rowFactsShort: 'respondent number, time sent, attendance',
  },
} as const;

export type ReportWords = (typeof REPORT_WORDS)[ReportLanguage];
