import { HadirClient, type HadirClientOptions } from '@hadir/client';
import type { Mirror } from './mirror.js';

export interface SyncOptions {
  baseUrl: string;
  apiKey: string;
  /** Campaign ids to sync; empty means every campaign the key can read. */
  campaigns: string[];
  /** Walk everything without `since`, and mark rows no longer served as removed. */
  full: boolean;
  /** How far before the watermark an incremental sync starts, for rows whose submittedAt ties or lags. */
  lookBackMs: number;
  limit: number;
}

export interface SyncProgress {
  campaignId: string;
  rows: number;
  pages: number;
  /** The matching rows the server reported on its latest page (grows as RSVPs arrive). */
  total: number;
  rateLimitWaits: number;
}

export interface CampaignResult {
  campaignId: string;
  mode: 'full' | 'incremental';
  since: string | null;
  rows: number;
  pages: number;
  removed: number;
  watermark: string | null;
}

export interface SyncDeps {
  mirror: Mirror;
  now?: () => Date;
  onProgress?: (progress: SyncProgress) => void;
  /** Passed to the client: transport, waits, hooks (tests inject faults here). */
  client?: Partial<HadirClientOptions>;
}

/**
 * Mirrors campaigns into the local store. Each page is upserted by id as it arrives (R4); the
 * watermark (max submittedAt stored) moves only after a campaign's whole walk succeeded, so an
 * interrupted run is simply run again: the upsert makes the repeat harmless.
 */
export async function runSync(options: SyncOptions, deps: SyncDeps): Promise<CampaignResult[]> {
  const now = deps.now ?? (() => new Date());
  let waits = 0;
  const client = new HadirClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    ...deps.client,
    onRateLimit: (event) => {
      waits += 1;
      deps.client?.onRateLimit?.(event);
    },
  });
  const readable = await client.campaigns();
  const wanted =
    options.campaigns.length > 0 ? options.campaigns : readable.map((campaign) => campaign.id);
  const results: CampaignResult[] = [];

  for (const campaignId of wanted) {
    const campaign = readable.find((candidate) => candidate.id === campaignId);
    if (!campaign) throw new Error(`campaign ${campaignId} is not readable with this key`);
    const summary = await client.summary(campaignId);
    await deps.mirror.saveCampaign(campaign, summary, now().toISOString());

    const watermark = options.full ? null : await deps.mirror.watermark(campaignId);
    const since =
      watermark === null
        ? null
        : new Date(Date.parse(watermark) - options.lookBackMs).toISOString();
    const seen = new Set<string>();
    let maxSubmittedAt: string | null = null;
    let pages = 0;
    for await (const page of client.respondentPages(campaignId, {
      limit: options.limit,
      ...(since ? { since } : {}),
    })) {
      await deps.mirror.upsertRespondents(campaignId, page.data);
      for (const row of page.data) {
        seen.add(row.id);
        if (maxSubmittedAt === null || row.submittedAt > maxSubmittedAt)
          maxSubmittedAt = row.submittedAt;
      }
      pages += 1;
      deps.onProgress?.({
        campaignId,
        rows: seen.size,
        pages,
        total: page.meta.total,
        rateLimitWaits: waits,
      });
    }
    const removed = options.full
      ? await deps.mirror.markRemovedExcept(campaignId, seen, now().toISOString())
      : 0;
    await deps.mirror.finishSync(
      campaignId,
      maxSubmittedAt,
      options.full ? now().toISOString() : null,
    );
    results.push({
      campaignId,
      mode: options.full ? 'full' : 'incremental',
      since,
      rows: seen.size,
      pages,
      removed,
      watermark: await deps.mirror.watermark(campaignId),
    });
  }
  return results;
}
