import type { FieldType } from '../db/schema.ts';

/** A small seeded PRNG (mulberry32): the demo data is the same on every run. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
    some: <T>(items: readonly T[]): T[] => items.filter(() => next() < 0.35),
  };
}
type Random = ReturnType<typeof randomSource>;

const FIRST_NAMES = [
  'Rina',
  'Bayu',
  'Siti',
  'Agus',
  'Dewi',
  'Budi',
  'Putri',
  'Andi',
  'Ayu',
  'Rizky',
  'Intan',
  'Fajar',
  'Nur',
  'Hendra',
  'Wulan',
  'Dimas',
  'Lestari',
  'Yoga',
  'Sari',
  'Eko',
  'Maya',
  'Teguh',
  'Indah',
  'Gilang',
];
const LAST_NAMES = [
  'Saputra',
  'Wijaya',
  'Lestari',
  'Santoso',
  'Pratama',
  'Hidayat',
  'Kusuma',
  'Nugroho',
  'Siregar',
  'Simanjuntak',
  'Wibowo',
  'Rahmawati',
  'Setiawan',
  'Harahap',
  'Gunawan',
  'Permata',
];
const WISHES = [
  'Selamat menempuh hidup baru!',
  'Semoga menjadi keluarga yang sakinah, mawaddah, warahmah.',
  'Bahagia selalu untuk kalian berdua.',
  'Mohon maaf belum bisa hadir, doa terbaik dari kami.',
];

interface DemoField {
  key: string;
  label: string;
  type: FieldType;
  answer: (random: Random, person: Person) => unknown;
}

interface Person {
  name: string;
  email: string;
  phone: string;
}

interface DemoCampaign {
  id: string;
  slug: string;
  title: string;
  eventDate: string;
  location: string;
  respondents: number;
  fields: DemoField[];
}

const blankish = (random: Random): unknown => random.pick(['', '   ', null]);

const CAMPAIGNS: DemoCampaign[] = [
  {
    id: 'pernikahan-rina-bayu',
    slug: 'pernikahan-rina-bayu',
    title: 'Pernikahan Rina & Bayu',
    eventDate: '2026-12-12T03:00:00Z',
    location: 'Gedung Sasana Kriya, Jakarta',
    respondents: 450,
    fields: [
      { key: 'nama', label: 'Nama lengkap', type: 'TEXT', answer: (_r, p) => p.name },
      { key: 'email', label: 'Email', type: 'EMAIL', answer: (_r, p) => p.email },
      { key: 'telepon', label: 'Nomor WhatsApp', type: 'PHONE', answer: (_r, p) => p.phone },
      { key: 'jumlah_tamu', label: 'Jumlah tamu', type: 'NUMBER', answer: (r) => r.int(1, 4) },
      {
        key: 'sesi',
        label: 'Sesi yang dihadiri',
        type: 'RADIO',
        answer: (r) => r.pick(['Akad', 'Resepsi', 'Keduanya']),
      },
      {
        key: 'menu',
        label: 'Pilihan menu',
        type: 'SELECT',
        answer: (r) => r.pick(['Nasi Liwet', 'Sate Ayam', 'Vegetarian']),
      },
      {
        key: 'alergi',
        label: 'Alergi makanan',
        type: 'CHECKBOX',
        answer: (r) => r.some(['Kacang', 'Seafood', 'Gluten', 'Susu']),
      },
      { key: 'ucapan', label: 'Ucapan dan doa', type: 'TEXTAREA', answer: (r) => r.pick(WISHES) },
    ],
  },
  {
    id: 'gathering-nusantara-2026',
    slug: 'gathering-nusantara-2026',
    title: 'Gathering Tahunan PT Nusantara Digital 2026',
    eventDate: '2027-01-16T01:00:00Z',
    location: 'Pantai Anyer, Banten',
    respondents: 1200,
    fields: [
      { key: 'nama', label: 'Nama', type: 'TEXT', answer: (_r, p) => p.name },
      { key: 'email', label: 'Email kantor', type: 'EMAIL', answer: (_r, p) => p.email },
      {
        key: 'divisi',
        label: 'Divisi',
        type: 'SELECT',
        answer: (r) => r.pick(['Engineering', 'Marketing', 'Finance', 'HR', 'Operasional']),
      },
      {
        key: 'ukuran_kaos',
        label: 'Ukuran kaos',
        type: 'RADIO',
        answer: (r) => r.pick(['S', 'M', 'L', 'XL', 'XXL']),
      },
      {
        key: 'tanggal_tiba',
        label: 'Tanggal tiba',
        type: 'DATE',
        answer: (r) => r.pick(['2027-01-15', '2027-01-16']),
      },
      {
        key: 'aktivitas',
        label: 'Aktivitas',
        type: 'CHECKBOX',
        answer: (r) => r.some(['Outbound', 'Snorkeling', 'Api Unggun', 'Karaoke']),
      },
      {
        key: 'transportasi',
        label: 'Transportasi',
        type: 'RADIO',
        answer: (r) => r.pick(['Bus Kantor', 'Kendaraan Pribadi']),
      },
      {
        key: 'catatan',
        label: 'Catatan',
        type: 'TEXTAREA',
        answer: (r) => r.pick(['Vegetarian', 'Bawa anak 1', 'Datang terlambat']),
      },
    ],
  },
  {
    id: 'jakarta-fun-run-2026',
    slug: 'jakarta-fun-run-2026',
    title: 'Jakarta Fun Run 10K 2026',
    eventDate: '2026-12-06T23:00:00Z',
    location: 'Gelora Bung Karno, Jakarta',
    respondents: 3000,
    fields: [
      { key: 'nama', label: 'Nama pelari', type: 'TEXT', answer: (_r, p) => p.name },
      { key: 'email', label: 'Email', type: 'EMAIL', answer: (_r, p) => p.email },
      { key: 'telepon', label: 'Telepon', type: 'PHONE', answer: (_r, p) => p.phone },
      { key: 'kategori', label: 'Kategori', type: 'RADIO', answer: (r) => r.pick(['5K', '10K']) },
      {
        key: 'ukuran_jersey',
        label: 'Ukuran jersey',
        type: 'SELECT',
        answer: (r) => r.pick(['XS', 'S', 'M', 'L', 'XL']),
      },
      {
        key: 'tanggal_lahir',
        label: 'Tanggal lahir',
        type: 'DATE',
        answer: (r) => `19${r.int(70, 99)}-0${r.int(1, 9)}-1${r.int(0, 9)}`,
      },
      {
        key: 'kontak_darurat',
        label: 'Kontak darurat',
        type: 'PHONE',
        answer: (r) => `+62812${r.int(1000000, 9999999)}`,
      },
      {
        key: 'target_menit',
        label: 'Target waktu (menit)',
        type: 'NUMBER',
        answer: (r) => r.int(25, 90),
      },
      {
        key: 'pernah_ikut',
        label: 'Pernah ikut sebelumnya?',
        type: 'RADIO',
        answer: (r) => r.pick(['Ya', 'Tidak']),
      },
    ],
  },
  {
    id: 'reuni-sma3-2006',
    slug: 'reuni-sma3-2006',
    title: 'Reuni Akbar SMA 3 Angkatan 2006',
    eventDate: '2027-02-20T09:00:00Z',
    location: 'Bandung',
    respondents: 120,
    fields: [
      { key: 'nama', label: 'Nama', type: 'TEXT', answer: (_r, p) => p.name },
      {
        key: 'kelas',
        label: 'Kelas',
        type: 'SELECT',
        answer: (r) => r.pick(['IPA 1', 'IPA 2', 'IPS 1', 'IPS 2']),
      },
    ],
  },
];

/** What the demo key may read: one campaign is left out on purpose, to show a 403. */
export const DEMO_SCOPES = [
  {
    campaignId: 'pernikahan-rina-bayu',
    fields: ['nama', 'jumlah_tamu', 'sesi', 'menu', 'alergi'],
  },
  {
    campaignId: 'gathering-nusantara-2026',
    fields: ['divisi', 'ukuran_kaos', 'aktivitas', 'transportasi'],
  },
  {
    campaignId: 'jakarta-fun-run-2026',
    fields: ['kategori', 'ukuran_jersey', 'target_menit', 'pernah_ikut'],
  },
];

const DEMO_EPOCH = Date.parse('2026-10-01T00:00:00Z');
const MINUTE = 60_000;

/** The demo's import document: realistic Indonesian campaigns with blanks and edited RSVPs. */
export function demoDocument(): { campaigns: unknown[]; respondents: unknown[] } {
  const random = randomSource(20261122);
  const respondents: unknown[] = [];
  for (const campaign of CAMPAIGNS) {
    for (let n = 1; n <= campaign.respondents; n++) {
      const name = `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`;
      const person: Person = {
        name,
        email: `${name.toLowerCase().replace(' ', '.')}${n}@contoh.id`,
        phone: `+62813${random.int(1000000, 9999999)}`,
      };
      const answers: Record<string, unknown> = {};
      for (const field of campaign.fields) {
        // Some respondents leave optional questions blank (served as absent, never null).
        const isName = field.key === 'nama';
        answers[field.key] =
          !isName && random.chance(0.12) ? blankish(random) : field.answer(random, person);
      }
      const firstSubmitted = DEMO_EPOCH + random.int(0, 45 * 24 * 60) * MINUTE;
      // About one in ten edited the RSVP later, which bumps submittedAt (spec, Respondent).
      const edited = random.chance(0.1);
      const submittedAt = edited
        ? firstSubmitted + random.int(60, 7 * 24 * 60) * MINUTE
        : firstSubmitted;
      respondents.push({
        id: `${campaign.id.split('-')[0]}-${String(n).padStart(5, '0')}`,
        campaignId: campaign.id,
        submittedAt: new Date(submittedAt).toISOString(),
        attendanceStatus: random.pick(['YES', 'YES', 'YES', 'NO', 'MAYBE']),
        answers,
        ipAddress: `36.${random.int(64, 95)}.${random.int(0, 255)}.${random.int(1, 254)}`,
        token: `rsvp_${random.next().toString(36).slice(2)}`,
        guestToken: `guest_${random.next().toString(36).slice(2)}`,
      });
    }
  }
  return {
    campaigns: CAMPAIGNS.map(({ respondents: _count, fields, ...campaign }) => ({
      ...campaign,
      fields: fields.map(({ key, label, type }) => ({ key, label, type })),
    })),
    respondents,
  };
}
