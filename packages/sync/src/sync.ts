import { randomUUID } from 'node:crypto';
import { HadirApiError, HadirClient, type HadirClientOptions } from '@hadir/client';
import type { Checkpoint, Mirror, PassMode } from './mirror.js';

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
  /** Discard a checkpoint left by an interrupted run and start the pass afresh. */
  restart?: boolean;
  /**
   * Per campaign, a `since` a notification named (its rows may lie behind the watermark: a late
   * record keeps its own submittedAt). An incremental pass reads from the earlier of the two.
   */
  changedSince?: Readonly<Record<string, string>>;
}

export interface SyncProgress {
  campaignId: string;
  mode: PassMode;
  rows: number;
  pages: number;
  /** The matching rows the server reported on its latest page (grows as RSVPs arrive). */
  total: number;
  rateLimitWaits: number;
  /** Set when the pass went on from a checkpoint of an earlier run. */
  resumedAt?: number;
}

export interface CampaignResult {
  campaignId: string;
  mode: PassMode;
  since: string | null;
  /** Rows stored by this pass, those of the run it resumed included. */
  rows: number;
  pages: number;
  /** Rows cleared: named by the removals feed, or (full pass) no longer served. */
  removed: number;
  /** Why this campaign got a full pass it was not asked for (the feed answered 410). */
  fullBecause?: string;
  watermark: string | null;
  /** Rows an earlier, interrupted run had already stored for this pass. */
  resumedFrom: number;
}

export interface SyncDeps {
  mirror: Mirror;
  now?: () => Date;
  onProgress?: (progress: SyncProgress) => void;
  /** Passed to the client: transport, waits, hooks (tests inject faults here). */
  client?: Partial<HadirClientOptions>;
}

/** The pass a campaign needs now, or the one an interrupted run left to finish. */
async function planPass(
  campaignId: string,
  options: SyncOptions,
  mirror: Mirror,
  now: Date,
): Promise<Checkpoint | Omit<Checkpoint, 'cursor'>> {
  const saved = await mirror.checkpoint(campaignId);
  const mode: PassMode = options.full
    ? 'full'
    : (await mirror.watermark(campaignId)) === null
      ? 'first'
      : 'incremental';
  const changedSince = mode === 'incremental' ? options.changedSince?.[campaignId] : undefined;
  // A checkpoint of another kind of pass (a full walk asked for now, say) is not continued, nor
  // one that began after a change now named: its pages would not hold that change's rows.
  if (
    saved &&
    !options.restart &&
    (saved.mode === mode || (mode === 'incremental' && saved.mode === 'first')) &&
    !(changedSince !== undefined && saved.since !== null && changedSince < saved.since)
  ) {
    return saved;
  }
  if (saved) await mirror.discardCheckpoint(campaignId);
  const watermark = mode === 'incremental' ? await mirror.watermark(campaignId) : null;
  const lookedBack =
    watermark === null ? null : new Date(Date.parse(watermark) - options.lookBackMs).toISOString();
  return {
    mode,
    since:
      lookedBack !== null && changedSince !== undefined && changedSince < lookedBack
        ? changedSince
        : lookedBack,
    rows: 0,
    pages: 0,
    maxSubmittedAt: null,
    passId: randomUUID(),
    startedAt: now.toISOString(),
  };
}

/**
 * Mirrors campaigns into the local store. Each page is upserted by id (R4) together with a
 * checkpoint, so a rerun after an interruption continues after the last page stored; the
 * watermark (max submittedAt stored) moves only once a campaign's whole pass succeeded.
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

  for (const campaignId of wanted) {
    const campaign = readable.find((candidate) => candidate.id === campaignId);
    if (!campaign) {
      if (mirrored.includes(campaignId)) continue;
      throw new Error(
        `campaign ${campaignId} is not readable with this key (it reads: ${readable.map((c) => c.id).join(', ') || 'none'})`,
      );
    }
    const summary = await client.summary(campaignId);
    const fields = await client.fields(campaignId);
    await deps.mirror.saveCampaign(campaign, summary, fields, now().toISOString());
    results.push(await syncCampaign(client, campaignId, options, deps, now, () => waits));
  }
  // Cleared rows leave no byte of their answers in the mirror's file (see Mirror.scrubRemoved).
  await deps.mirror.scrubRemoved();
  return results;
}

/** The removals feed's watermark now: taken before a full pass, followed from after it. */
async function removalsUntil(client: HadirClient, campaignId: string): Promise<string> {
  for await (const page of client.removalPages(campaignId, { limit: 1 })) return page.meta.until;
  throw new Error(`the removals feed of ${campaignId} answered no page`);
}

/**
 * Applies the removals since the mirror's removals watermark; undefined when the feed cannot
 * vouch for them (410): the caller then re-reads the campaign.
 */
async function applyRemovals(
  client: HadirClient,
  mirror: Mirror,
  campaignId: string,
  since: string,
): Promise<{ removed: number; until: string } | undefined> {
  let removed = 0;
  let until = since;
  try {
    for await (const page of client.removalPages(campaignId, { since })) {
      removed += await mirror.applyRemovals(campaignId, page.data);
      until = page.meta.until > until ? page.meta.until : until;
    }
  } catch (error) {
    if (error instanceof HadirApiError && error.status === 410) return undefined;
    throw error;
  }
  return { removed, until };
}

async function syncCampaign(
  client: HadirClient,
  campaignId: string,
  options: SyncOptions,
  deps: SyncDeps,
  now: () => Date,
  waits: () => number,
): Promise<CampaignResult> {
  let pass = await planPass(campaignId, options, deps.mirror, now());
  let removed = 0;
  let removalsWatermark = await deps.mirror.removalsWatermark(campaignId);
  let fullBecause: string | undefined;
  if (pass.mode === 'incremental') {
    const applied =
      removalsWatermark === null
        ? undefined
        : await applyRemovals(client, deps.mirror, campaignId, removalsWatermark);
    if (applied) {
      removed = applied.removed;
      removalsWatermark = applied.until;
    } else {
      fullBecause =
        removalsWatermark === null
          ? 'the mirror has no removals watermark yet (made by an older hadir-sync)'
          : `the server no longer keeps removals since ${removalsWatermark}`;
      await deps.mirror.discardCheckpoint(campaignId);
      pass = await planPass(campaignId, { ...options, full: true }, deps.mirror, now());
    }
  }
  // Before a first or full pass: every removal after this is in the feed for the next run. A
  // resumed pass keeps the one taken when it began.
  if (pass.mode !== 'incremental') {
    pass = {
      ...pass,
      removalsUntil: pass.removalsUntil ?? (await removalsUntil(client, campaignId)),
    };
    removalsWatermark = pass.removalsUntil ?? null;
  }

  const resumedFrom = pass.rows;
  let { rows, pages, maxSubmittedAt } = pass;
  for await (const page of client.respondentPages(campaignId, {
    limit: options.limit,
    ...(pass.since ? { since: pass.since } : {}),
    ...('cursor' in pass ? { cursor: pass.cursor } : {}),
  })) {
    rows += page.data.length;
    pages += 1;
    for (const row of page.data) {
      if (maxSubmittedAt === null || row.submittedAt > maxSubmittedAt)
        maxSubmittedAt = row.submittedAt;
    }
    // Without a cursor to continue after, a page is stored without a checkpoint.
    const checkpoint: Checkpoint | null =
      typeof page.meta.nextCursor === 'string'
        ? { ...pass, cursor: page.meta.nextCursor, rows, pages, maxSubmittedAt }
        : null;
    await deps.mirror.storePage(campaignId, page.data, {
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
  }
  if (pass.mode === 'full') {
    removed += await deps.mirror.markRemovedExcept(campaignId, pass.passId, now().toISOString());
  }
  await deps.mirror.finishSync(
    campaignId,
    maxSubmittedAt,
    pass.mode === 'full' ? now().toISOString() : null,
    removalsWatermark,
  );
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
