import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/connect.ts';
import {
  deleteRespondents,
  findLiveCampaignIds,
  markCampaignDeleted,
  replaceCampaignFields,
  upsertCampaign,
  upsertRespondents,
} from './import.repository.ts';
import type { DroppedValues, ImportDocument } from './import-document.ts';
import { rejectImport } from './import-problems.ts';

export interface ImportCounts {
  campaigns: { upserted: number; deleted: number };
  respondents: { upserted: number; deleted: number };
  /** Never-served values left out (see NeverServed). */
  dropped: DroppedValues;
}

/**
 * Writes a checked document in one transaction: campaigns first, then respondents. A respondent
 * whose campaign is neither in the document nor live in the store rejects the whole import, and
 * so do `earlierProblems` (the document's own, see checkImportDocument): reported together, with
 * nothing written.
 */
export async function importDocument(
  store: Store,
  clock: Clock,
  document: ImportDocument,
  earlierProblems: readonly string[] = [],
): Promise<ImportCounts> {
  const now = clock.now();
  return store.db.transaction().execute(async (trx) => {
    const upsertedCampaigns = new Set<string>();
    const deletedCampaigns = new Set<string>();
    for (const entry of document.campaigns) {
      if (entry.kind === 'delete') deletedCampaigns.add(entry.id);
      else upsertedCampaigns.add(entry.id);
    }

    const respondents = document.respondents.flatMap((entry) =>
      entry.kind === 'upsert' ? [entry] : [],
    );
    const referenced = [...new Set(respondents.map((entry) => entry.campaignId))].filter(
      (id) => !upsertedCampaigns.has(id),
    );
    const live = await findLiveCampaignIds(trx, referenced);
    const problems: string[] = [...earlierProblems];
    for (const entry of respondents) {
      // A missing campaignId is already reported with the record's other problems.
      if (entry.campaignId === '') continue;
      const known = upsertedCampaigns.has(entry.campaignId) || live.has(entry.campaignId);
      if (!known || deletedCampaigns.has(entry.campaignId)) {
        problems.push(
          `respondents[${entry.position}] (id ${entry.id}): campaign ${entry.campaignId} does not exist`,
        );
      }
    }
    if (problems.length > 0) rejectImport(problems);

    let deletedCampaignCount = 0;
    for (const entry of document.campaigns) {
      if (entry.kind === 'delete') {
        deletedCampaignCount += await markCampaignDeleted(trx, entry.id, now);
        continue;
      }
      await upsertCampaign(trx, entry, now);
      if (entry.fields) await replaceCampaignFields(trx, entry.id, entry.fields);
    }

    await upsertRespondents(
      trx,
      respondents.map((entry) => ({
        id: entry.id,
        campaign_id: entry.campaignId,
        submitted_at: entry.submittedAt,
        attendance_status: entry.attendanceStatus,
        answers: entry.answers,
      })),
    );
    const deletedRespondents = await deleteRespondents(
      trx,
      document.respondents.flatMap((entry) => (entry.kind === 'delete' ? [entry.id] : [])),
    );

    const counts: ImportCounts = {
      campaigns: { upserted: upsertedCampaigns.size, deleted: deletedCampaignCount },
      respondents: { upserted: respondents.length, deleted: deletedRespondents },
      dropped: document.dropped,
    };
    await recordAudit(trx, { actor: 'operator', action: 'import', details: counts }, now);
    return counts;
  });
}
