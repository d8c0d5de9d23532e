import { randomUUID } from 'node:crypto';
import {
  type Campaign,
  type ChangesPage,
  HadirApiError,
  HadirClient,
  type HadirClientOptions,
} from '@hadir/client';
import type { Checkpoint, Mirror, PassMode } from './mirror.js';

export interface SyncOptions {
  baseUrl: string;
  apiKey: string;
  /** Campaign ids to sync; empty means every campaign the key can read. */
  campaigns: string[];
  /** Walk everything, and mark rows no longer served as removed. */
  full: boolean;
  limit: number;
  /** Discard a checkpoint left by an interrupted run and start the pass afresh. */
  restart?: boolean;
}

export interface SyncProgress {
  campaignId: string;
  mode: PassMode;
  rows: number;
  pages: number;
  /** The changes the server reported on its latest page (grows as RSVPs arrive). */
  total: number;
  rateLimitWaits: number;
  /** Set when the pass went on from a checkpoint of an earlier run. */
  resumedAt?: number;
}

export interface CampaignResult {
  campaignId: string;
  mode: PassMode;
  /** The changes watermark the pass read from (null: from the beginning). */
  since: string | null;
  /** Rows stored by this pass, those of the run it resumed included. */
  rows: number;
  pages: number;
  /** Rows cleared: named as removals by the feed, or (full pass) no longer served. */
  removed: number;
  /** Why this campaign got a full pass it was not asked for. */
  fullBecause?: string;
  /** The largest submittedAt stored. */
  watermark: string | null;
  /** Rows an earlier, interrupted run had already stored for this pass. */
  resumedFrom: number;
}

/** The ETag of each campaign's last empty answer, by the `since` it answered. */
export type QuietTags = Map<string, { since: string; etag: string }>;

export interface SyncDeps {
  mirror: Mirror;
  now?: () => Date;
  onProgress?: (progress: SyncProgress) => void;
  /** Passed to the client: transport, waits, hooks (tests inject faults here). */
  client?: Partial<HadirClientOptions>;
  /**
   * Kept between syncs by a long-running caller (the watch): a campaign with nothing new since its
   * watermark is then asked conditionally, and its `304` is not counted by the rate limit.
   */
  quiet?: QuietTags;
  /** Likewise, the campaign list, summaries and fields last read, with their ETags. */
  described?: Described;
}

/** What a long-running caller keeps of the campaigns' descriptions between refreshes. */
export interface Described {
  etags: Map<string, string | undefined>;
  campaigns?: Campaign[];
}

/** How long an unchanged watermark is kept before an empty answer's `until` replaces it. */
const QUIET_WATERMARK_MS = 24 * 3_600_000;

/** The pass a campaign needs now, or the one an interrupted run left to finish. */
async function planPass(
  campaignId: string,
  options: SyncOptions,
  mirror: Mirror,
  now: Date,
): Promise<{ pass: Checkpoint | Omit<Checkpoint, 'cursor'>; fullBecause?: string }> {
  const saved = await mirror.checkpoint(campaignId);
  const watermark = await mirror.changesWatermark(campaignId);
  // A mirror filled by an older hadir-sync (by submittedAt) has rows but no changes watermark:
  // one full pass puts it on the feed, clearing whatever it holds that the server no longer has.
  const older = watermark === null && (await mirror.watermark(campaignId)) !== null;
  const mode: PassMode =
    options.full || older ? 'full' : watermark === null ? 'first' : 'incremental';
  const fullBecause =
    older && !options.full
      ? 'the mirror has no changes watermark yet (made by an older hadir-sync): one full pass'
      : undefined;
  if (saved && !options.restart && saved.mode === mode && saved.since === watermark) {
    return { pass: saved, ...(fullBecause ? { fullBecause } : {}) };
  }
  if (saved) await mirror.discardCheckpoint(campaignId);
  return {
    pass: {
      mode,
      since: mode === 'incremental' ? watermark : null,
      rows: 0,
      pages: 0,
      maxSubmittedAt: null,
      passId: randomUUID(),
      startedAt: now.toISOString(),
    },
    ...(fullBecause ? { fullBecause } : {}),
  };
}

/** The client a sync uses: the options given, with its own count of rate-limit waits. */
export function syncClient(
  options: Pick<SyncOptions, 'baseUrl' | 'apiKey'>,
  extra: Partial<HadirClientOptions> | undefined,
  onWait: () => void,
): HadirClient {
  return new HadirClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    userAgent: 'hadir-sync/1',
    ...extra,
    onRateLimit: (event) => {
      onWait();
      extra?.onRateLimit?.(event);
    },
  });
}

/**
 * Mirrors campaigns into the local store: their descriptions, then each campaign's changes feed
 * from its watermark (every current respondent the first time). Each page is applied together
 * with a checkpoint, so a rerun after an interruption continues after the last page stored; the
 * watermark moves only once a campaign's whole walk succeeded.
 */
export async function runSync(options: SyncOptions, deps: SyncDeps): Promise<CampaignResult[]> {
  let waits = 0;
  const client = syncClient(options, deps.client, () => {
    waits += 1;
  });
  return syncWith(client, options, deps, () => waits);
}

/** runSync with a client of the caller's (the watch's, paced within its budget). */
export async function syncWith(
  client: HadirClient,
  options: SyncOptions,
  deps: SyncDeps,
  waits: () => number = () => 0,
): Promise<CampaignResult[]> {
  const { readable, results } = await refreshCampaigns(client, options, deps);
  const wanted =
    options.campaigns.length > 0 ? options.campaigns : readable.map((campaign) => campaign.id);
  for (const campaignId of wanted) {
    if (!readable.some((campaign) => campaign.id === campaignId)) continue;
    results.push(await syncCampaign(client, campaignId, options, deps, waits));
  }
  // Cleared rows leave no byte of their answers in the mirror's file (see Mirror.scrubRemoved).
  await deps.mirror.scrubRemoved();
  return results;
}

/**
 * Stores what the key may read of each wanted campaign (its list entry, summary and fields), and
 * clears the mirrored campaigns it can no longer read. Summaries and fields are asked
 * conditionally when `etags` remembers them. Returns the campaigns the key reads.
 */
export async function refreshCampaigns(
  client: HadirClient,
  options: Pick<SyncOptions, 'campaigns'>,
  deps: SyncDeps,
): Promise<{ readable: Campaign[]; results: CampaignResult[] }> {
  const now = deps.now ?? (() => new Date());
  const described: Described = deps.described ?? { etags: new Map() };
  const { etags } = described;
  const listed = await client.campaignsIfChanged(
    described.campaigns ? etags.get('campaigns') : undefined,
  );
  if (listed !== 'unchanged') {
    etags.set('campaigns', listed.etag);
    described.campaigns = listed.campaigns;
  }
  const readable = described.campaigns ?? [];
  const results: CampaignResult[] = [];
  // A mirrored campaign the key cannot read any more (deleted: 404; out of scope: 403) keeps
  // nothing of anyone: the mirror holds only what the key may read.
  const mirrored = await deps.mirror.campaignIds();
  for (const campaignId of mirrored) {
    if (readable.some((campaign) => campaign.id === campaignId)) continue;
    if (options.campaigns.length > 0 && !options.campaigns.includes(campaignId)) continue;
    const removed = await deps.mirror.removeCampaign(campaignId, now().toISOString());
    results.push({
      campaignId,
      mode: 'full',
      since: null,
      rows: 0,
      pages: 0,
      removed,
      fullBecause: 'the key can no longer read this campaign: its rows were cleared',
      watermark: null,
      resumedFrom: 0,
    });
  }
  const wanted =
    options.campaigns.length > 0 ? options.campaigns : readable.map((campaign) => campaign.id);
  for (const campaignId of wanted) {
    const campaign = readable.find((candidate) => candidate.id === campaignId);
    if (!campaign) {
      if (mirrored.includes(campaignId)) continue;
      throw new Error(
        `campaign ${campaignId} is not readable with this key (it reads: ${readable.map((c) => c.id).join(', ') || 'none'})`,
      );
    }
    const summary = await client.summaryIfChanged(campaignId, etags.get(`summary:${campaignId}`));
    const fields = await client.fieldsIfChanged(campaignId, etags.get(`fields:${campaignId}`));
    if (summary !== 'unchanged') etags.set(`summary:${campaignId}`, summary.etag);
    if (fields !== 'unchanged') etags.set(`fields:${campaignId}`, fields.etag);
    await deps.mirror.saveCampaign(
      campaign,
      summary === 'unchanged' ? undefined : summary.summary,
      fields === 'unchanged' ? undefined : fields.fields,
      now().toISOString(),
    );
  }
  return { readable, results };
}

/**
 * Brings one campaign up to date from its changes feed. A `since` older than the removals the
 * server keeps (410) turns the walk into a full pass, which clears what the server no longer
 * serves.
 */
export async function syncCampaign(
  client: HadirClient,
  campaignId: string,
  options: SyncOptions,
  deps: SyncDeps,
  waits: () => number = () => 0,
): Promise<CampaignResult> {
  const now = deps.now ?? (() => new Date());
  let { pass, fullBecause } = await planPass(campaignId, options, deps.mirror, now());
  try {
    return await walk(client, campaignId, pass, fullBecause, options.limit, deps, now, waits);
  } catch (error) {
    if (!(error instanceof HadirApiError && error.status === 410 && pass.mode === 'incremental')) {
      throw error;
    }
    fullBecause = `the server no longer keeps removals since ${pass.since}: one full pass`;
    await deps.mirror.discardCheckpoint(campaignId);
    ({ pass } = await planPass(campaignId, { ...options, full: true }, deps.mirror, now()));
    return walk(client, campaignId, pass, fullBecause, options.limit, deps, now, waits);
  }
}

async function walk(
  client: HadirClient,
  campaignId: string,
  pass: Checkpoint | Omit<Checkpoint, 'cursor'>,
  fullBecause: string | undefined,
  limit: number,
  deps: SyncDeps,
  now: () => Date,
  waits: () => number,
): Promise<CampaignResult> {
  const resumedFrom = pass.rows;
  let { rows, pages, maxSubmittedAt } = pass;
  let removed = 0;
  const quiet = pass.since === null ? undefined : deps.quiet?.get(campaignId);
  let cursor = 'cursor' in pass ? pass.cursor : undefined;
  let until: string | undefined;
  for (;;) {
    const conditional =
      cursor === undefined && quiet?.since === pass.since ? quiet.etag : undefined;
    const answer = await client.changesPage(campaignId, {
      ...(pass.since !== null && cursor === undefined ? { since: pass.since } : {}),
      ...(cursor !== undefined ? { cursor } : { limit }),
      ...(conditional ? { etag: conditional } : {}),
    });
    if (answer === 'unchanged') break;
    const page: ChangesPage = answer.page;
    if (pages === 0 && page.data.length === 0 && page.meta.nextCursor === null) {
      // Nothing new: the next look at this watermark can be conditional, and free.
      if (pass.since !== null && answer.etag) {
        deps.quiet?.set(campaignId, { since: pass.since, etag: answer.etag });
      }
      until = page.meta.until;
      break;
    }
    pages += 1;
    for (const change of page.data) {
      if (change.type !== 'upsert') continue;
      rows += 1;
      const submittedAt = change.respondent.submittedAt;
      if (maxSubmittedAt === null || submittedAt > maxSubmittedAt) maxSubmittedAt = submittedAt;
    }
    const next = page.meta.nextCursor;
    // Without a cursor to continue after, a page is applied without a checkpoint.
    const checkpoint: Checkpoint | null =
      next === null ? null : { ...pass, cursor: next, rows, pages, maxSubmittedAt };
    removed += await deps.mirror.applyChanges(campaignId, page.data, {
      seenPass: pass.mode === 'full' ? pass.passId : null,
      checkpoint,
    });
    deps.onProgress?.({
      campaignId,
      mode: pass.mode,
      rows,
      pages,
      total: page.meta.total,
      rateLimitWaits: waits(),
      ...(resumedFrom > 0 ? { resumedAt: resumedFrom } : {}),
    });
    if (next === null) {
      until = page.meta.until;
      break;
    }
    cursor = next;
  }
  if (pass.mode === 'full') {
    removed += await deps.mirror.markRemovedExcept(campaignId, pass.passId, now().toISOString());
  }
  // An empty answer keeps a recent watermark, so that the next look can be answered 304.
  const keep =
    pages === 0 &&
    pass.since !== null &&
    (until === undefined || Date.parse(until) - Date.parse(pass.since) < QUIET_WATERMARK_MS);
  await deps.mirror.finishSync(campaignId, {
    watermark: maxSubmittedAt,
    fullAt: pass.mode === 'full' ? now().toISOString() : null,
    changesWatermark: keep ? pass.since : (until ?? pass.since),
  });
  if (pages > 0) deps.quiet?.delete(campaignId);
  return {
    campaignId,
    mode: pass.mode,
    since: pass.since,
    rows,
    pages,
    removed,
    ...(fullBecause ? { fullBecause } : {}),
    watermark: await deps.mirror.watermark(campaignId),
    resumedFrom,
  };
}
