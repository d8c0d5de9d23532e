import { createHash } from 'node:crypto';
import type { FieldDefinition, HadirClient, Respondent } from '@hadir/client';
import { shortest } from './answers.ts';
import { type FilterInput, guestFilter, passes } from './guest-filter.ts';
import type { GuestTable } from './guest-table.ts';
import { encodePageToken } from './page-token.ts';
import { ToolProblem } from './problems.ts';
import { positionOf } from './tool-paging.ts';

/** Every guest of a campaign (after `since`) that passes the filter, in (time, id) order. */
export async function matchingGuests(
  client: HadirClient,
  campaignId: string,
  since: string | undefined,
  input: FilterInput,
  fields: readonly FieldDefinition[],
): Promise<Respondent[]> {
  const filter = guestFilter(input, fields, campaignId);
  const matched: Respondent[] = [];
  const options = since === undefined ? { limit: 200 } : { limit: 200, since };
  for await (const row of client.respondents(campaignId, options)) {
    if (passes(row, filter)) matched.push(row);
  }
  return matched;
}

/** Names one filtered listing, so its cursor is not taken for another's. */
function questionOf(campaignId: string, since: string | undefined, input: FilterInput): string {
  const named = JSON.stringify([
    campaignId,
    since ?? null,
    input.attendanceStatus ?? null,
    input.answers ?? null,
  ]);
  return createHash('sha256').update(named).digest('base64url').slice(0, 16);
}

/** The guests a filtered list_respondents call matched, after those an earlier answer showed. */
export async function matchedGuests(
  input: FilterInput & {
    campaignId: string;
    since?: string | undefined;
    cursor?: string | undefined;
    limit?: number | undefined;
  },
  client: HadirClient,
  fields: readonly FieldDefinition[],
  table: GuestTable,
) {
  const question = questionOf(input.campaignId, input.since, input);
  const position = positionOf(input.cursor, 'list_respondents');
  if (position && (position.kind !== 'more_matches' || position.question !== question)) {
    throw new ToolProblem(
      'That cursor belongs to another listing: pass it with the same campaignId, since, attendanceStatus and answers it came with, or leave cursor out to start again.',
    );
  }
  const matched = await matchingGuests(client, input.campaignId, input.since, input, fields);
  const after = position?.kind === 'more_matches' ? position.after : undefined;
  const rows = after
    ? matched.filter(
        (row) => row.submittedAt > after.at || (row.submittedAt === after.at && row.id > after.id),
      )
    : matched;
  const most = Math.min(rows.length, input.limit ?? rows.length);
  const bodyOf = (shown: number, valueLimit?: number) => {
    const last = rows[shown - 1];
    return {
      campaignId: input.campaignId,
      matched: matched.length,
      columns: table.columns,
      rows: rows.slice(0, shown).map((row) => table.rowOf(row, valueLimit)),
      nextCursor:
        shown < rows.length && last
          ? encodePageToken({
              kind: 'more_matches',
              question,
              after: { at: last.submittedAt, id: last.id },
            })
          : null,
    };
  };
  return shortest(most, bodyOf);
}

/** Counts from the campaign's totals: one request, whatever its size. */
export async function countedFromTotals(
  client: HadirClient,
  campaignId: string,
  status: FilterInput['attendanceStatus'],
) {
  const { totals } = await client.summary(campaignId);
  const maybe =
    typeof totals.maybe === 'number'
      ? totals.maybe
      : totals.responses - totals.attending - totals.notAttending;
  const counts = { YES: totals.attending, NO: totals.notAttending, MAYBE: maybe };
  if (status === undefined) return { campaignId, counts: { all: totals.responses, ...counts } };
  const statuses = [status].flat();
  return {
    campaignId,
    attendanceStatus: status,
    count: statuses.reduce((sum, one) => sum + counts[one], 0),
  };
}
