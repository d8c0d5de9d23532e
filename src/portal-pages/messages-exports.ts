/**
 * The words of a key's deliveries to a bucket, both languages side by side (see
 * src/exports): the key page's section, its form, and each delivery's state.
 */
const en = {
  title: 'Deliveries to a bucket',
  intro: (keep: number) =>
    `The guest lists this key reads, delivered on a schedule to an S3-compatible bucket: a CSV, Parquet or Excel file per campaign, then a manifest.json with each file's rows, size and SHA-256. The bucket keeps the last runs (${keep} unless you choose), so a guest erased here leaves it within that many runs; a mirror that must forget sooner follows the removals feed from the manifest's removals.until.`,
  none: 'No deliveries yet.',
  to: 'To',
  at: 'at',
  schedule: { '1h': 'Every hour, on the hour', '1d': (time: string) => `Every day at ${time} WIB` },
  formats: 'Files',
  keeps: (runs: number) => `Keeps the last ${runs} runs`,
  firstRun: (at: string) => `First delivery ${at}.`,
  delivered: (at: string, files: number, rows: string) =>
    `Last delivered ${at}: ${files} files, ${rows} rows.`,
  running: 'A delivery is running now.',
  failed: (at: string, tries: number, why: string) =>
    `The last delivery failed ${at}, after ${tries} ${tries === 1 ? 'try' : 'tries'}: ${why}.`,
  retry: (at: string) => `It is tried again ${at}.`,
  givenUp: 'It is not tried again for this run; the next scheduled run tries afresh.',
  lastGood: (at: string) => `The last complete delivery was ${at}.`,
  stopped: 'Stopped: this key no longer reads data, so nothing is delivered.',
  remove: 'Remove this delivery',
  removed: 'The delivery was removed. What it already wrote stays in the bucket.',
  added: 'The delivery is set. Its first run is at the time shown.',
  setUp: 'Set up a delivery',
  setUpHint: 'Setting one up asks for a code from your e-mail first, as revealing a key does.',
  stepUpIntro:
    'To set up a delivery, enter the code we just e-mailed you. The form opens for 10 minutes.',
  addTitle: 'New delivery',
  destination: 'Bucket and folder',
  destinationHint: 's3://BUCKET/FOLDER, for example s3://catering-data/hadir',
  endpoint: 'Storage address',
  endpointHint:
    'The S3 endpoint, for example https://s3.ap-southeast-3.amazonaws.com or your provider’s.',
  region: 'Region',
  regionHint: 'Leave as it is unless your provider asks for one (us-east-1 otherwise).',
  accessKey: 'Access key ID',
  secretKey: 'Secret access key',
  secretHint: 'Stored sealed and never shown again, not even to you.',
  every: 'How often',
  hourly: 'Every hour',
  daily: 'Every day',
  time: 'Time of day (WIB, for a daily delivery)',
  formatsLegend: 'Files to write',
  formatNames: { csv: 'CSV', parquet: 'Parquet (for data warehouses)', xlsx: 'Excel' },
  keep: 'Runs to keep',
  add: 'Set up the delivery',
  refused: (why: string) => `The delivery was not set up: ${why}.`,
  stepUpExpired: 'Your confirmation has expired. Set up a delivery again and enter the new code.',
};

export type ExportWords = typeof en;

const id: ExportWords = {
  title: 'Pengiriman ke bucket',
  intro: (keep) =>
    `Daftar tamu yang dibaca kunci ini, dikirim terjadwal ke bucket yang kompatibel dengan S3: satu berkas CSV, Parquet, atau Excel per kampanye, lalu manifest.json berisi jumlah baris, ukuran, dan SHA-256 tiap berkas. Bucket menyimpan kiriman terakhir (${keep} kecuali Anda memilih lain), jadi tamu yang dihapus di sini hilang darinya dalam sebanyak itu kiriman; cermin yang harus melupakan lebih cepat mengikuti umpan penghapusan dari removals.until di manifest.`,
  none: 'Belum ada pengiriman.',
  to: 'Ke',
  at: 'di',
  schedule: {
    '1h': 'Setiap jam, tepat pada jamnya',
    '1d': (time) => `Setiap hari pukul ${time} WIB`,
  },
  formats: 'Berkas',
  keeps: (runs) => `Menyimpan ${runs} kiriman terakhir`,
  firstRun: (at) => `Pengiriman pertama ${at}.`,
  delivered: (at, files, rows) => `Terakhir dikirim ${at}: ${files} berkas, ${rows} baris.`,
  running: 'Sebuah pengiriman sedang berjalan.',
  failed: (at, tries, why) =>
    `Pengiriman terakhir gagal ${at}, setelah ${tries} kali coba: ${why}.`,
  retry: (at) => `Dicoba lagi ${at}.`,
  givenUp: 'Kiriman ini tidak dicoba lagi; kiriman terjadwal berikutnya mencoba dari awal.',
  lastGood: (at) => `Pengiriman lengkap terakhir ${at}.`,
  stopped: 'Berhenti: kunci ini tidak lagi membaca data, jadi tidak ada yang dikirim.',
  remove: 'Hapus pengiriman ini',
  removed: 'Pengiriman dihapus. Yang sudah ditulisnya tetap di bucket.',
  added: 'Pengiriman sudah diatur. Kiriman pertamanya pada waktu yang tertera.',
  setUp: 'Atur pengiriman',
  setUpHint: 'Mengatur pengiriman meminta kode dari e-mail Anda lebih dulu, seperti membuka kunci.',
  stepUpIntro:
    'Untuk mengatur pengiriman, masukkan kode yang baru kami kirim lewat e-mail. Formulirnya terbuka selama 10 menit.',
  addTitle: 'Pengiriman baru',
  destination: 'Bucket dan folder',
  destinationHint: 's3://BUCKET/FOLDER, misalnya s3://data-katering/hadir',
  endpoint: 'Alamat penyimpanan',
  endpointHint:
    'Endpoint S3, misalnya https://s3.ap-southeast-3.amazonaws.com atau milik penyedia Anda.',
  region: 'Region',
  regionHint: 'Biarkan apa adanya kecuali penyedia Anda memintanya (selain itu us-east-1).',
  accessKey: 'ID access key',
  secretKey: 'Secret access key',
  secretHint: 'Disimpan tersegel dan tidak pernah ditampilkan lagi, juga kepada Anda.',
  every: 'Seberapa sering',
  hourly: 'Setiap jam',
  daily: 'Setiap hari',
  time: 'Pukul (WIB, untuk pengiriman harian)',
  formatsLegend: 'Berkas yang ditulis',
  formatNames: { csv: 'CSV', parquet: 'Parquet (untuk gudang data)', xlsx: 'Excel' },
  keep: 'Kiriman yang disimpan',
  add: 'Atur pengiriman',
  refused: (why) => `Pengiriman tidak diatur: ${why}.`,
  stepUpExpired:
    'Konfirmasi Anda sudah kedaluwarsa. Atur pengiriman lagi dan masukkan kode yang baru.',
};

export const EXPORT_WORDS = { id, en };
