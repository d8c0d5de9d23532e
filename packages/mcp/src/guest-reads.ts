import type { FieldDefinition, HadirClient, RespondentFilter } from '@hadir/client';

/**
 * Counts from the campaign's summary, of the guests `filter` matches (Hadir counts them): one
 * request, whatever the campaign's size. Without a filter, by attendance too.
 */
export async function countedFromTotals(
  client: HadirClient,
  campaignId: string,
  filter: RespondentFilter | undefined,
) {
  const { totals } = await client.summary(campaignId, filter ? { filter } : {});
  if (filter) return { campaignId, count: totals.responses };
  const maybe =
    typeof totals.maybe === 'number'
      ? totals.maybe
      : totals.responses - totals.attending - totals.notAttending;
  return {
    campaignId,
    counts: { all: totals.responses, YES: totals.attending, NO: totals.notAttending, MAYBE: maybe },
  };
}

/** Questions whose breakdown the summary gives: one answer per guest, counted by Hadir. */
const SINGLE_CHOICE = new Set(['RADIO', 'SELECT']);

/**
 * The guests `filter` matches, counted by their answer to `grouping` (a guest with several
 * choices counts under each), and those who left it blank. A single-choice question is counted
 * by Hadir in one request; any other is counted here from the matching guests, which Hadir finds
 * (a page of 200 at a time).
 */
export async function countByAnswer(
  client: HadirClient,
  campaignId: string,
  grouping: FieldDefinition,
  filter: RespondentFilter | undefined,
): Promise<{ count: number; counts: Map<string, number>; blank: number }> {
  if (SINGLE_CHOICE.has(grouping.type)) {
    const summary = await client.summary(campaignId, filter ? { filter } : {});
    const counts = new Map(Object.entries(summary.breakdowns[grouping.key] ?? {}));
    const answered = [...counts.values()].reduce((sum, n) => sum + n, 0);
    const count = summary.totals.responses;
    return { count, counts, blank: count - answered };
  }
  const counts = new Map<string, number>();
  let count = 0;
  let blank = 0;
  const options = filter ? { limit: 200, filter } : { limit: 200 };
  for await (const row of client.respondents(campaignId, options)) {
    count += 1;
    const value = row.fields[grouping.key] as string | string[] | undefined;
    if (value === undefined || (Array.isArray(value) && value.length === 0)) blank += 1;
    for (const choice of [value ?? []].flat()) counts.set(choice, (counts.get(choice) ?? 0) + 1);
  }
  return { count, counts, blank };
}
