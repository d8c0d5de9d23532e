import type { AttendanceStatus } from './types.js';

/** Values an answer test takes: one, or several (any of them). */
type FilterValues = string | readonly string[];

/**
 * Which respondents to read or count (an addition within v1), matched by the server: every test
 * must pass. Filters only on fields the key may read; any other field is refused with a 400.
 */
export interface RespondentFilter {
  /** Only these attendance statuses. */
  attendanceStatus?: AttendanceStatus | readonly AttendanceStatus[];
  /**
   * By field key: the answer equals one of the values, or `{ contains }` one of the texts, case
   * ignored. A multi-select answer passes when one of its choices does.
   *
   * @example { menu: 'Vegetarian', alergi: { contains: 'kacang' } }
   */
  answers?: Readonly<Record<string, FilterValues | { contains: FilterValues }>>;
}

/** A filter's query parameters: `attendanceStatus=YES,MAYBE`, `answers[menu]=…`, `answers[x][contains]=…`. */
export function filterQuery(
  filter: RespondentFilter | undefined,
): Record<string, string | readonly string[]> {
  const query: Record<string, string | readonly string[]> = {};
  if (!filter) return query;
  if (filter.attendanceStatus !== undefined) {
    query.attendanceStatus = [filter.attendanceStatus].flat().join(',');
  }
  for (const [key, test] of Object.entries(filter.answers ?? {})) {
    if (typeof test === 'object' && 'contains' in test) {
      query[`answers[${key}][contains]`] = [test.contains].flat();
    } else {
      query[`answers[${key}]`] = [test].flat();
    }
  }
  return query;
}
