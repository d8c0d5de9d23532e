/** How people read Hadir's instants: Asia/Jakarta's wall clock, in Bahasa Indonesia or English. */
const DATE_TIMES: Record<'id' | 'en', Intl.DateTimeFormat> = {
  id: new Intl.DateTimeFormat('id-ID', {
    timeZone: 'Asia/Jakarta',
    dateStyle: 'medium',
    timeStyle: 'short',
  }),
  en: new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Asia/Jakarta',
    dateStyle: 'medium',
    timeStyle: 'short',
  }),
};

/** An instant as a person reads it: Jakarta time with the zone named ("27 Nov 2026, 10.00 WIB"). */
export function jakartaDateTime(language: 'id' | 'en', at: number): string {
  return `${DATE_TIMES[language].format(at)} WIB`;
}
