/** Spec, Campaign (list item). */
export interface Campaign {
  id: string;
  slug: string;
  title: string;
  eventDate: string | null;
  location: string | null;
  responseCount: number;
}

/** Spec, Summary. Counters the client does not know yet are kept (spec, Versioning). */
export interface Summary {
  campaign: { id: string; slug: string; title: string };
  totals: { responses: number; attending: number; notAttending: number; [counter: string]: number };
  breakdowns: Record<string, Record<string, number>>;
}

export type AttendanceStatus = 'YES' | 'NO' | 'MAYBE';

/**
 * Spec, Respondent. R1: the set of keys in `fields` varies by key and respondent; a missing key
 * means "not allowed or left blank", never null.
 */
export interface Respondent {
  id: string;
  submittedAt: string;
  attendanceStatus: AttendanceStatus;
  fields: Record<string, string | string[]>;
}

export interface PageMeta {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
  /** Present on servers that offer keyset paging; null on the last page. */
  nextCursor?: string | null;
}

export interface RespondentsPage {
  data: Respondent[];
  meta: PageMeta;
}
