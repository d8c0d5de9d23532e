import type { Clock } from '../clock.ts';
import type { Scrub, Store } from '../db/store.ts';
import { purgeDisclosuresBefore } from '../disclosures/disclosures.repository.ts';
import { endChange } from '../journal/end-change.ts';
import { DAY_MS } from '../time-units.ts';
import {
  findCampaignsPastRetention,
  purgeRemovalsBefore,
  purgeVersionsBefore,
  removeCampaignRespondents,
} from './removals.repository.ts';

/** How long personal data and tombstones are kept (see docs/operating/personal-data.md). */
export interface RetentionSettings {
  /** Respondents of a campaign go this many days after its eventDate; undefined keeps them. */
  daysAfterEvent: number | undefined;
  /** Tombstones are kept this many days; the removals feed vouches for no older `since`. */
  removalsDays: number;
  /**
   * Lines of the disclosure record are kept this many days (see src/disclosures); undefined keeps
   * them (a caller that runs only the removals' part).
   */
  disclosuresDays?: number | undefined;
}

/** What a retention run removes (or, planned, would remove). */
export interface RetentionRun {
  campaigns: Array<{ campaignId: string; eventDate: number; respondents: number }>;
  tombstonesPurged: number;
  /** Lines of the disclosure record forgotten for their age. */
  disclosuresPurged: number;
  /** Where the removed rows' bytes may still be; absent when nothing was removed. */
  scrub?: Scrub;
}

/**
 * Storage limitation: each campaign whose event is `daysAfterEvent` days past loses its
 * respondents (each with its tombstone, so mirrors follow), and tombstones older than
 * `removalsDays` are forgotten. With `apply` false it only says what it would remove.
 */
export async function runRetention(
  store: Store,
  clock: Clock,
  settings: RetentionSettings,
  apply: boolean,
): Promise<RetentionRun> {
  const now = clock.now();
  const campaigns =
    settings.daysAfterEvent === undefined
      ? []
      : await findCampaignsPastRetention(store.db, now - settings.daysAfterEvent * DAY_MS);
  if (!apply) return { campaigns, tombstonesPurged: 0, disclosuresPurged: 0 };
  for (const campaign of campaigns) {
    await store.db.transaction().execute(async (trx) => {
      const removed = await removeCampaignRespondents(trx, campaign.campaignId);
      await endChange(trx, {
        engine: store.engine,
        clock,
        audit: {
          actor: 'retention',
          action: 'respondents.expire',
          target: campaign.campaignId,
          details: { respondents: removed, daysAfterEvent: settings.daysAfterEvent },
        },
      });
    });
  }
  const tombstonesPurged = await purgeRemovalsBefore(
    store.db,
    now - settings.removalsDays * DAY_MS,
  );
  // A removed respondent's last version is kept as long as its tombstone.
  await purgeVersionsBefore(store.db, now - settings.removalsDays * DAY_MS);
  // Who received whom outlives the answers themselves (an erased guest can still ask), not this.
  const disclosuresPurged =
    settings.disclosuresDays === undefined
      ? 0
      : await purgeDisclosuresBefore(store.records, now - settings.disclosuresDays * DAY_MS);
  if (campaigns.length === 0) return { campaigns, tombstonesPurged, disclosuresPurged };
  return { campaigns, tombstonesPurged, disclosuresPurged, scrub: await store.scrubRemovals() };
}
