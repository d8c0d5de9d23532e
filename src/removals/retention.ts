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

/**
 * Runs retention once a day in a serving process (first a minute after it starts), and logs
 * what it removed: counts and campaign ids, never a person's data. Returns what stops it.
 */
export function retainDaily(
  store: Store,
  clock: Clock,
  settings: RetentionSettings,
  log: (summary: {
    campaigns: string[];
    respondents: number;
    tombstonesPurged: number;
    disclosuresPurged: number;
  }) => void,
  onError: (error: unknown) => void,
): () => void {
  const run = () => {
    runRetention(store, clock, settings, true).then(
      (result) =>
        log({
          campaigns: result.campaigns.map((campaign) => campaign.campaignId),
          respondents: result.campaigns.reduce((sum, campaign) => sum + campaign.respondents, 0),
          tombstonesPurged: result.tombstonesPurged,
          disclosuresPurged: result.disclosuresPurged,
        }),
      onError,
    );
  };
  const first = setTimeout(run, 60_000);
  const daily = setInterval(run, DAY_MS);
  first.unref();
  daily.unref();
  return () => {
    clearTimeout(first);
    clearInterval(daily);
  };
}
