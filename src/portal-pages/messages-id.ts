import { DISABLE_AFTER_FAILING_DAYS } from '../notifications/retry-schedule.ts';
import { HOUR_MS } from '../time-units.ts';
import type { Messages } from './messages-en.ts';
import { EXPORT_WORDS } from './messages-exports.ts';
import { GUEST_LIST_WORDS } from './messages-guest-lists.ts';

/** The portal's words in Indonesian, the language most holders read. */
export const id: Messages = {
  languageName: 'Bahasa Indonesia',
  portalName: 'Portal Hadir',
  skipToContent: 'Langsung ke isi',
  nav: {
    label: 'Portal',
    guestLists: 'Daftar tamu',
    keys: 'Kunci',
    devices: 'Perangkat',
    password: 'Kata sandi',
    start: 'Mulai',
    signOut: 'Keluar',
  },
  switchLanguage: 'English',
  signedInAs: (email) => `Masuk sebagai ${email}`,
  times: { never: 'belum pernah' },
  duration: (seconds) => {
    if (seconds < 60) return `${seconds} detik`;
    if (seconds < 3600) return `${Math.ceil(seconds / 60)} menit`;
    return `${Math.ceil(seconds / 3600)} jam`;
  },
  timeLeft: (ms) => {
    const hours = ms / HOUR_MS;
    if (hours < 1) return `${Math.max(1, Math.ceil(ms / 60_000))} menit`;
    if (hours < 48) return `${Math.floor(hours)} jam`;
    return `${Math.floor(hours / 24)} hari`;
  },
  signIn: {
    title: 'Masuk',
    email: 'Alamat e-mail',
    password: 'Kata sandi',
    submit: 'Lanjut',
    forgot: 'Lupa kata sandi?',
    resetDone: 'Kata sandi Anda telah diatur ulang. Masuk dengan kata sandi baru.',
    signedOut: 'Anda telah keluar.',
    sessionEnded:
      'Anda dikeluarkan setelah beberapa kali salah memasukkan kata sandi saat ini. Masuk lagi untuk mengubah kata sandi.',
    resend: 'Kirim kode baru',
    resendHint:
      'Belum ada e-mail setelah semenit? Periksa folder spam, atau minta kode dikirim lagi.',
    codeResent: 'Kode telah dikirim lagi. Gunakan e-mail terbaru.',
    codeTitle: 'Masukkan kode',
    codeIntro: (email) => `Kami mengirim kode 6 digit ke ${email}. Kode berlaku 10 menit.`,
    code: 'Kode',
    codeHint: 'Enam angka, seperti di e-mail.',
    remember: 'Ingat perangkat ini selama 30 hari (tanpa kode di sini)',
    codeSubmit: 'Masuk',
    startOver: 'Gunakan akun lain',
    devMail: 'Kotak surat pengembangan',
  },
  forgot: {
    title: 'Lupa kata sandi',
    intro:
      'Masukkan alamat e-mail akun Anda; kami akan mengirim kode untuk membuat kata sandi baru.',
    submit: 'Kirim kode',
    resetTitle: 'Buat kata sandi baru',
    resetIntro: (email) =>
      `Jika ${email} memiliki akun, kode sedang dikirim. Kode berlaku 10 menit. E-mail itu juga berisi tautan untuk membuat kata sandi tanpa kode.`,
    submitReset: 'Simpan kata sandi',
    linkIntro: 'Buat kata sandi baru untuk akun Anda.',
    linkGone:
      'Tautan ini sudah kedaluwarsa atau sudah dipakai. Minta yang baru lewat "Lupa kata sandi?" di halaman masuk.',
  },
  password: {
    title: 'Kata sandi',
    mustChange: 'Buat kata sandi baru terlebih dahulu: operator Anda memberi kata sandi sementara.',
    current: 'Kata sandi saat ini',
    new: 'Kata sandi baru',
    again: 'Kata sandi baru, sekali lagi',
    hint: '12 sampai 72 karakter; bukan kata sandi umum. Sesi lain dan perangkat yang diingat akan diakhiri.',
    submit: 'Ubah kata sandi',
    changed:
      'Kata sandi Anda telah diubah. Sesi lain dan perangkat yang diingat telah dikeluarkan.',
  },
  guestLists: GUEST_LIST_WORDS.id,
  exports: EXPORT_WORDS.id,
  keys: {
    title: 'Kunci API',
    keyTitle: (name) => `Kunci: ${name}`,
    none: 'Belum ada kunci. Operator Anda yang menerbitkannya.',
    lastFour: 'berakhir dengan',
    status: 'Status',
    created: 'Dibuat',
    expires: 'Kedaluwarsa',
    lastUsed: 'Terakhir dipakai',
    reads: 'Yang dibaca',
    noScope: 'Tidak ada kampanye: kunci ini tidak membaca apa pun.',
    campaignGone: (campaignId) => `kampanye ${campaignId} (dihapus)`,
    totalsOnly: 'hanya total dan kehadiran',
    states: {
      active: (until) => `Aktif, kedaluwarsa ${until}`,
      expiring_soon: (left, at) => `Aktif, berakhir dalam ${left} (${at})`,
      rotating_out: (left, at) => `Diganti kunci baru: berhenti bekerja dalam ${left} (${at})`,
      expired: (at) => `Kedaluwarsa ${at}`,
      revoked: (at) => `Dicabut ${at}`,
    },
    revealTitle: 'Lihat kunci',
    revealIntro: 'Operator menerbitkan kunci ini agar Anda lihat sekali, di sini.',
    reveal: 'Tampilkan kunci',
    rotateTitle: 'Ganti kunci',
    rotateLegend: 'Berapa lama kunci saat ini tetap bekerja?',
    rotateIntro:
      'Anda mendapat kunci baru dengan akses yang sama. Pilih berapa lama kunci saat ini tetap bekerja, agar Anda sempat memasang kunci baru di setiap sistem yang memakainya.',
    rotateContinue: 'Lanjut',
    overlaps: {
      0: 'Hentikan sekarang',
      1: '1 jam',
      24: '24 jam',
      168: '7 hari',
    },
    confirmTitle: (name) => `Ganti ${name}?`,
    confirmNow:
      'Kunci Anda saat ini akan langsung berhenti bekerja. Setiap sistem yang memakainya akan gagal sampai Anda memasang kunci baru.',
    confirmOverlap: (overlap, until) =>
      `Kunci Anda saat ini tetap bekerja selama ${overlap}, sampai ${until}. Pasang kunci baru di setiap sistem yang memakainya sebelum itu; setelahnya kunci saat ini berhenti bekerja.`,
    confirmNewKey:
      'Kunci baru ditampilkan sekali, di halaman berikutnya. Siapkan tempat aman untuk menyimpannya.',
    confirmSubmit: 'Ganti kunci',
    confirmSubmitNow: 'Ganti kunci dan hentikan yang sekarang',
    revealedTitle: 'Kunci Anda',
    once: 'Salin sekarang: kunci ini tidak akan ditampilkan lagi.',
    copy: 'Salin',
    copied: 'Tersalin',
    keyLabel: 'Kunci API',
    back: 'Semua kunci',
    backToKey: 'Kembali ke kunci',
    toNewKey: 'Ke kunci baru',
    rotatedTitle: 'Kunci baru diterbitkan',
    oldValidUntil: (until) =>
      `Kunci lama tetap bekerja sampai ${until}. Pasang kunci baru di setiap sistem yang memakainya sebelum itu.`,
    oldStopped:
      'Kunci lama sudah berhenti bekerja. Pasang kunci baru sekarang di setiap sistem yang memakai kunci lama.',
    stepUpTitle: 'Pastikan ini Anda',
    stepUpIntroReveal: 'Kami mengirim kode 6 digit ke e-mail Anda. Masukkan untuk melihat kunci.',
    stepUpIntroRotate: 'Kami mengirim kode 6 digit ke e-mail Anda. Masukkan untuk mengganti kunci.',
    stepUpSubmit: 'Konfirmasi',
    cancel: 'Batal',
  },
  webhooks: {
    removeTitle: 'Hapus endpoint ini?',
    removeConsequence: (url: string) =>
      `Hadir berhenti mengirim notifikasi ke ${url}, dan log pengirimannya ikut terhapus. Untuk menerimanya lagi, tambahkan endpoint dari awal, dengan rahasia baru.`,
    removeConfirm: 'Hapus endpoint',
    failure: {
      refused: 'Server Anda menolak sambungan',
      timeout: 'Server Anda tidak menjawab tepat waktu',
      lookup: 'Nama server Anda tidak ditemukan',
      closed: 'Server Anda menutup sambungan sebelum menjawab',
      certificate: 'Sertifikat server Anda tidak dipercaya',
      unreachable: 'Server Anda tidak dapat dijangkau',
      serverError: 'Server Anda mengalami galat',
      turnedAway: 'Server Anda menolak notifikasi',
      gone: 'Server Anda menyatakan endpoint sudah tidak ada',
      redirect: 'Server Anda menjawab dengan pengalihan, yang tidak diikuti',
      address: 'Alamat ini tidak boleh menerima notifikasi (privat atau lokal)',
      other: 'Pengiriman gagal',
    } as Record<string, string>,
    title: 'Notifikasi perubahan',
    intro:
      'Hadir dapat memberi tahu server Anda saat kampanye yang dibaca kunci ini berubah: RSVP baru atau diubah, penghapusan, perubahan kampanye. Setiap notifikasi hanya berisi id dan jumlah, tidak pernah jawaban, dan ditandatangani agar server Anda dapat memastikan asalnya dari Hadir.',
    none: 'Belum ada endpoint.',
    events: 'Peristiwa',
    everyEvent: 'semua peristiwa',
    enabled: (lastSuccess) => `Aktif. Terakhir terkirim: ${lastSuccess}`,
    failing: (since) =>
      `Aktif, tetapi gagal sejak ${since}. Setelah ${DISABLE_AFTER_FAILING_DAYS} hari gagal, endpoint dinonaktifkan.`,
    disabled: (why) =>
      `Nonaktif${why ? `: ${why}` : ''}. Notifikasi menunggu dan dikirim saat Anda mengaktifkannya.`,
    disabledWhy: {
      'by hand': 'dinonaktifkan di sini',
      gone: 'server Anda menjawab 410 Gone',
      failing: `gagal selama ${DISABLE_AFTER_FAILING_DAYS} hari tanpa satu pun keberhasilan`,
    },
    disabledMail: {
      subject: 'Endpoint notifikasi Hadir dinonaktifkan',
      text: (url, why) =>
        `Endpoint ${url} dinonaktifkan karena ${why}.\nAktifkan lagi di portal (halaman kunci Anda); peristiwa yang terlewat akan dikirim.`,
    },
    oldSecretUntil: (until) => `Rahasia sebelumnya juga menandatangani hingga ${until}.`,
    log: 'Catatan pengiriman',
    test: 'Kirim peristiwa uji',
    disable: 'Nonaktifkan',
    enable: 'Aktifkan',
    rotate: 'Rahasia baru',
    remove: 'Hapus',
    addTitle: 'Tambah endpoint',
    url: 'Alamat (URL) server Anda',
    urlHint: 'Alamat https:// di internet, misalnya https://api.example.com/hadir-events',
    which: 'Peristiwa mana',
    whichHint: 'Jangan pilih apa pun untuk menerima semua peristiwa.',
    eventMeaning: {
      'respondents.changed': 'RSVP ditambah atau diubah (dan berapa yang dihapus)',
      'respondents.removed': 'RSVP mana yang dihapus',
      'campaign.updated': 'kampanye atau pertanyaannya berubah',
      'campaign.removed': 'kunci ini tidak dapat lagi membaca sebuah kampanye',
      'campaign.added': 'kunci ini kini dapat membaca sebuah kampanye',
      'key.expiring': 'kunci ini berakhir dalam 7 hari, dan dalam 1 hari',
      'webhook.test': 'uji yang Anda kirim dari sini',
    },
    add: 'Tambah endpoint',
    urlRefused:
      'Alamat ini tidak dapat menerima notifikasi. Gunakan alamat https:// dari server di internet (bukan alamat privat atau lokal).',
    stepUpIntroAdd:
      'Kami mengirim kode 6 digit ke e-mail Anda. Masukkan untuk menambah endpoint dan melihat rahasianya.',
    stepUpIntroRotate:
      'Kami mengirim kode 6 digit ke e-mail Anda. Masukkan untuk melihat rahasia baru endpoint.',
    secretTitle: 'Rahasia tanda tangan',
    secretOnce: 'Salin sekarang: Anda tidak akan melihat rahasia ini lagi.',
    secretFor: 'Untuk',
    secretLabel: 'Rahasia tanda tangan',
    verifyHint:
      'Server Anda memeriksa tanda tangan setiap notifikasi dengan rahasia ini (Standard Webhooks; verifyWebhook di SDK Hadir melakukannya).',
    bothSign: (until) =>
      `Hingga ${until}, setiap notifikasi ditandatangani dengan rahasia baru dan rahasia sebelumnya: pindahkan server Anda ke rahasia baru sebelum itu.`,
    tested: 'Peristiwa uji sedang dikirim. Hasilnya muncul di catatan pengiriman.',
    turnedOff: 'Dinonaktifkan. Notifikasi menunggu sampai Anda mengaktifkannya.',
    turnedOn: 'Diaktifkan. Notifikasi yang menunggu sedang dikirim.',
    removed: 'Endpoint dihapus.',
    redelivered: (count) => `${count} notifikasi akan dikirim lagi.`,
    logTitle: 'Catatan pengiriman',
    logTableTitle: 'Notifikasi 30 hari terakhir, terbaru dahulu',
    noDeliveries: 'Tidak ada yang dikirim ke endpoint ini dalam 30 hari terakhir.',
    when: 'Waktu',
    event: 'Peristiwa',
    state: 'Status',
    attempts: 'Percobaan',
    answer: 'Jawaban terakhir',
    states: {
      pending: 'Menunggu',
      delivered: 'Terkirim',
      failed: 'Gagal (dihentikan)',
      skipped: 'Tidak dikirim: kunci tidak boleh membacanya sekarang',
    },
    next: (at) => `percobaan berikut ${at}`,
    redeliver: 'Kirim lagi',
    redeliverFailed: 'Kirim lagi semua notifikasi yang gagal, dari',
    since: {
      1: '1 jam terakhir',
      24: '24 jam terakhir',
      168: '7 hari terakhir',
      720: '30 hari terakhir',
    },
    redeliverFailedSubmit: 'Kirim lagi yang gagal',
  },
  usage: {
    quietDays: (days: number) => `Tidak ada permintaan pada ${days} hari lainnya.`,
    noRequests: 'Tidak ada permintaan dalam 30 hari terakhir.',
    title: 'Pemakaian, 30 hari terakhir',
    note: 'Dihitung oleh setiap server dan disimpan sekali semenit: permintaan terbaru muncul dalam satu atau dua menit.',
    scale: (top) => `Permintaan per hari (skala sampai ${top})`,
    tableTitle: 'Permintaan per hari, terbaru dulu',
    day: 'Hari',
    answered: 'Dijawab',
    notModified: 'Dijawab dari cache',
    notModifiedTerm: 'HTTP 304, tidak dihitung dalam batas permintaan',
    rateLimited: 'Ditolak karena batas permintaan',
    rateLimitedTerm: 'HTTP 429',
    errors: 'Gagal',
    rows: 'Baris dikirim',
    explained: {
      answered: 'permintaan yang mendapat data tamu atau angka yang diminta',
      notModified:
        'permintaan yang dijawab "tidak ada yang berubah sejak terakhir diminta": gratis, tidak dihitung dalam batas permintaan per menit',
      rateLimited:
        'permintaan yang ditolak karena kunci sudah memakai jatah permintaannya pada menit itu',
      errors:
        'permintaan yang tidak mendapat data: kunci, kampanye atau pertanyaan yang tidak boleh dipakai kunci, permintaan yang salah ketik, atau gangguan di pihak kami',
      rows: 'jumlah tamu yang dikirim dalam semua jawaban hari itu',
    },
    total: (requests, rows) =>
      `${requests.toLocaleString('id')} permintaan dan ${rows.toLocaleString('id')} baris dalam 30 hari`,
  },
  devices: {
    title: 'Perangkat yang diingat',
    intro: 'Perangkat ini masuk tanpa kode e-mail. Cabut yang tidak Anda kenali.',
    none: 'Tidak ada perangkat yang diingat.',
    label: 'Perangkat',
    created: 'Diingat',
    lastUsed: 'Terakhir dipakai',
    expires: 'Kedaluwarsa',
    revoke: 'Cabut',
    revoked: 'Perangkat telah dicabut; saat masuk berikutnya perlu kode.',
  },
  start: {
    title: 'Mulai',
    intro:
      'API data hanya-baca berupa JSON lewat HTTPS. Kunci Anda dikirim di header Authorization.',
    reference: 'Referensi API',
    llms: 'llms.txt, referensi untuk model bahasa',
    skill: 'skill.zip, paket keterampilan untuk agen pemrograman',
    firstRequest: 'Permintaan pertama (simpan kunci di variabel lingkungan, jangan di kode):',
    yourKey: 'kunci Anda',
    curlTitle: 'Dengan curl',
    sdkTitle: 'Dengan SDK klien',
    sdk: 'Di Node.js, dengan @hadir/client: SDK mengurus halaman, batas permintaan dan pengulangan.',
    syncTitle: 'Dengan hadir-sync',
    sync: 'Simpan salinan setiap kampanye yang dibaca kunci Anda di SQLite, lalu ekspor sebagai CSV (salinan SQLite perlu Node.js 22.16 atau lebih baru):',
    syncOlderNode:
      'Di Node.js 20 sampai 22.15, simpan salinannya di PostgreSQL (basis data apa pun yang boleh Anda tulisi):',
    install: 'Pasang (Node.js 20 atau lebih baru) dari server ini, di folder tersendiri:',
    notBuilt: 'Server ini dibangun tanpa paket yang dapat dipasang.',
    mcpTitle: 'Dengan agen AI (MCP)',
    mcpHosted:
      'Agen yang memakai Model Context Protocol tersambung ke endpoint Hadir yang di-host tanpa memasang apa pun: URL-nya, dan kunci Anda sebagai header yang dibaca dari environment (HADIR_API_KEY). Alatnya hanya membaca, dalam kampanye, kolom dan batas permintaan kunci Anda.',
    mcp: 'Atau jalankan hadir-mcp di mesin Anda, untuk host yang menjalankan server lokal: di folder pemasangan, perintah ini mencetak entri untuk konfigurasi MCP-nya, dengan path absolut, sehingga host agen boleh menjalankannya dari folder mana pun. Ganti placeholder dengan kunci Anda. Bacaannya dihitung dalam batas permintaan kunci Anda.',
  },
  notFound: {
    title: 'Halaman tidak ditemukan',
    text: 'Tidak ada halaman di alamat ini. Mungkin sudah pindah, atau tautannya salah ketik.',
    backToKeys: 'Ke daftar kunci Anda',
    backToSignIn: 'Ke halaman masuk',
  },
  devMail: {
    title: 'Kotak surat pengembangan',
    intro: 'Surat yang akan dikirim server ini. Hanya tampil saat pengembangan, tanpa SMTP_URL.',
    none: 'Belum ada surat.',
    to: 'Kepada',
    subject: 'Perihal',
    sent: 'Dikirim',
  },
  errors: {
    invalid_credentials: 'Alamat e-mail atau kata sandi salah.',
    invalid_code: 'Kode salah, sudah dipakai, atau kedaluwarsa. Minta kode baru bila perlu.',
    mismatch: 'Kedua kata sandi baru berbeda. Ketik kata sandi yang sama di kedua kolom.',
    throttled: {
      network: (wait) => `Terlalu banyak percobaan dari jaringan ini. Coba lagi dalam ${wait}.`,
      password: (wait) =>
        `Terlalu banyak kata sandi salah untuk alamat ini dari jaringan ini. Coba lagi dalam ${wait}, atau atur ulang kata sandi.`,
      code_mails: (wait) =>
        `Terlalu banyak kode dikirim ke akun ini. Gunakan kode terbaru yang Anda terima, atau coba lagi dalam ${wait}.`,
      reset_codes: (wait) =>
        `Terlalu banyak kode salah untuk alamat ini. Gunakan tautan di e-mail, atau coba lagi dalam ${wait}.`,
      test_events: (wait) =>
        `Peristiwa uji baru saja dikirim ke endpoint ini. Kirim lagi dalam ${wait}.`,
    },
    badFormTitle: 'Permintaan ini tidak dapat dibaca',
    bad_form: (problem) => {
      switch (problem.kind) {
        case 'repeated':
          return `Kolom “${problem.field}” dikirim lebih dari sekali. Kirim formulir dari halamannya.`;
        case 'control':
          return `Kolom “${problem.field}” berisi karakter yang tidak diizinkan (karakter kontrol).`;
        case 'too_large':
          return 'Formulir ini lebih besar dari yang dikirim halaman portal mana pun.';
        case 'type':
          return 'Portal hanya menerima formulir seperti yang dikirim halamannya (application/x-www-form-urlencoded).';
        case 'unreadable':
          return 'Formulir tidak dapat dibaca. Kirim dari halamannya.';
      }
    },
    account_locked:
      'Akun ini dikunci setelah berulang kali masuk tanpa selesai. Minta operator membukanya, atau atur ulang kata sandi.',
    length: 'Gunakan 12 sampai 72 karakter.',
    same_as_current: 'Pilih kata sandi yang berbeda dari yang sekarang.',
    common: 'Ini salah satu kata sandi paling umum. Pilih yang lain.',
    current_wrong: 'Kata sandi saat ini salah.',
    already_revealed:
      'Kunci ini sudah pernah ditampilkan; hanya sekali. Rotasi untuk mendapat kunci baru.',
    not_revealable: 'Kunci ini tidak diterbitkan untuk ditampilkan di portal.',
    conflict: 'Kunci ini tidak bisa dirotasi sekarang: sudah dirotasi atau tidak aktif lagi.',
    service_unavailable:
      'Layanan sedang sibuk atau kode tidak dapat dikirim. Coba lagi sebentar lagi.',
    form_expired: 'Formulir ini sudah kedaluwarsa. Silakan coba lagi.',
    https_required: 'Portal hanya dilayani lewat HTTPS (atau di mesin ini saat pengembangan).',
    not_found: 'Tidak ada apa-apa di sini.',
    generic: 'Terjadi kesalahan. Coba lagi sebentar lagi.',
    fix: 'Mohon perbaiki berikut ini:',
  },
};
